package strategy

import (
	"errors"
	"fmt"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint/session"
)

// todoDescription describes an incremental task checkpoint (SPEC 5.2.9):
// the content of the last completed todo, else "Planning: N todos", else
// "". A call that rewrote the whole list (TodoWrite) is described by that
// list alone: its last completed item, else its length. A call that
// created or changed items by ID (TaskCreate, TaskUpdate) is described by
// the session's record once the call is applied: the item marked completed
// last, else the number of items created in the session.
func todoDescription(call agent.TodoCall, rec *session.TodoRecord) string {
	if call.Whole {
		for i := len(call.List) - 1; i >= 0; i-- {
			if t := call.List[i]; t.Status == agent.TodoStatusCompleted && t.Content != "" {
				return t.Content
			}
		}
		if len(call.List) > 0 {
			return fmt.Sprintf("Planning: %d todos", len(call.List))
		}
		return ""
	}
	if rec == nil {
		return ""
	}
	if it, ok := rec.LastCompleted(); ok {
		return it.Content
	}
	if rec.Created > 0 {
		return fmt.Sprintf("Planning: %d todos", rec.Created)
	}
	return ""
}

// recordTodos applies a call that created or changed todos by ID to the
// session's record and reports whether the record changed; a call that
// rewrote the whole list needs no record.
func recordTodos(st *session.State, call agent.TodoCall) bool {
	if call.Whole || call.Empty() {
		return false
	}
	if st.Todos == nil {
		st.Todos = &session.TodoRecord{}
	}
	return st.Todos.Apply(call)
}

// rememberTodos records a todo call when no incremental checkpoint is made
// (no subagent runs, or nothing changed), so that a later call naming a
// todo by ID can still be described. A session without state records
// nothing: its turn has not started.
func (e *Env) rememberTodos(in TaskInput) error {
	if in.Todos.Whole || in.Todos.Empty() {
		return nil
	}
	err := e.Sessions.Update(in.SessionID, func(st *session.State, exists bool) error {
		if !exists || !recordTodos(st, in.Todos) {
			return errNoChange
		}
		return nil
	})
	if errors.Is(err, errNoChange) {
		return nil
	}
	return err
}

// incrementalSubject is the subject of an incremental task checkpoint
// (SPEC 5.2.9): `<todo> (<id12>)`, or `Checkpoint #<n>: <id12>` without a
// description. The description is redacted before it is cut.
func (e *Env) incrementalSubject(desc string, seq int, toolUseID string) string {
	if desc == "" {
		return fmt.Sprintf("Checkpoint #%d: %s", seq, short12(toolUseID))
	}
	return fmt.Sprintf("%s (%s)", truncateBytes(e.Redactor.Text(desc), 60), short12(toolUseID))
}
