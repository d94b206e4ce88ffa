package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/entirecli/entire/agent"
)

// The todo tools. TodoWrite rewrites the whole list; Claude Code 2.1.197
// has no TodoWrite and keeps tasks instead, created one at a time
// (TaskCreate) and then changed by ID (TaskUpdate).
const (
	toolTodoWrite  = "TodoWrite"
	toolTaskCreate = "TaskCreate"
	toolTaskUpdate = "TaskUpdate"
)

// todoWriteInput is TodoWrite's tool_input.
type todoWriteInput struct {
	Todos []struct {
		Content    string `json:"content"`
		ActiveForm string `json:"activeForm"`
		Status     string `json:"status"` // pending, in_progress, completed
	} `json:"todos"`
}

// taskCreateInput is TaskCreate's tool_input; taskCreateResponse its
// tool_response ({"task": {"id": "1", "subject": "..."}}).
type taskCreateInput struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	ActiveForm  string `json:"activeForm"`
}

type taskCreateResponse struct {
	Task struct {
		ID      taskID `json:"id"`
		Subject string `json:"subject"`
	} `json:"task"`
}

// taskUpdateInput is TaskUpdate's tool_input: the task's ID and what
// changes (2.1.197 was seen sending only taskId and status).
type taskUpdateInput struct {
	TaskID  taskID `json:"taskId"`
	Status  string `json:"status"`
	Subject string `json:"subject"`
}

// taskID is a task ID: a JSON string ("1"), or a number for a client that
// sends one.
type taskID string

func (id *taskID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] != '"' && !bytes.Equal(b, []byte("null")) {
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*id = taskID(n)
		return nil
	}
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s != nil {
		*id = taskID(*s)
	}
	return nil
}

// ParseTodoCall reads a call of TodoWrite, TaskCreate or TaskUpdate (the
// tools of the post-todo hook); ok is false for any other tool. TodoWrite
// gives the whole list. TaskCreate gives the created task, with the ID of
// its response and the subject as content, and nothing when the response
// has no ID (a failed call). TaskUpdate gives the change to one task. An
// empty input gives the zero call.
func (a *Agent) ParseTodoCall(toolName string, input, response []byte) (agent.TodoCall, bool, error) {
	var call agent.TodoCall
	switch toolName {
	case toolTodoWrite:
		call.Whole = true
		var in todoWriteInput
		if err := unmarshalTodo(input, &in); err != nil {
			return agent.TodoCall{}, true, fmt.Errorf("parse %s input: %w", toolName, err)
		}
		for _, t := range in.Todos {
			call.List = append(call.List, agent.Todo{Content: t.Content, Status: t.Status})
		}
	case toolTaskCreate:
		var in taskCreateInput
		if err := unmarshalTodo(input, &in); err != nil {
			return agent.TodoCall{}, true, fmt.Errorf("parse %s input: %w", toolName, err)
		}
		var resp taskCreateResponse
		if r := bytes.TrimSpace(response); len(r) > 0 && r[0] == '{' { // a failed call answers a string
			if err := unmarshalTodo(r, &resp); err != nil {
				return agent.TodoCall{}, true, fmt.Errorf("parse %s response: %w", toolName, err)
			}
		}
		if resp.Task.ID == "" {
			return call, true, nil // not created
		}
		subject := in.Subject
		if subject == "" {
			subject = resp.Task.Subject
		}
		call.Created = []agent.Todo{{ID: string(resp.Task.ID), Content: subject, Status: agent.TodoStatusPending}}
	case toolTaskUpdate:
		var in taskUpdateInput
		if err := unmarshalTodo(input, &in); err != nil {
			return agent.TodoCall{}, true, fmt.Errorf("parse %s input: %w", toolName, err)
		}
		if in.TaskID != "" {
			call.Updated = []agent.Todo{{ID: string(in.TaskID), Content: in.Subject, Status: in.Status}}
		}
	default:
		return agent.TodoCall{}, false, nil
	}
	return call, true, nil
}

// unmarshalTodo decodes a tool input or response; empty means nothing to
// decode.
func unmarshalTodo(raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: %v", agent.ErrMalformedInput, err)
	}
	return nil
}
