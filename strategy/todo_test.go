package strategy

import (
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint/session"
)

func TestTodoDescription(t *testing.T) {
	t.Parallel()
	list := func(todos ...agent.Todo) agent.TodoCall { return agent.TodoCall{Whole: true, List: todos} }
	done := func(s string) agent.Todo { return agent.Todo{Content: s, Status: agent.TodoStatusCompleted} }
	open := func(s string) agent.Todo { return agent.Todo{Content: s, Status: agent.TodoStatusPending} }
	withDone := &session.TodoRecord{Created: 3, Completions: 1, Items: []session.TodoItem{
		{ID: "1", Content: "Write the parser", Status: agent.TodoStatusCompleted, Done: 1}, {ID: "2", Content: "Test it"}}}
	planned := &session.TodoRecord{Created: 3, Items: []session.TodoItem{{ID: "1", Content: "Write the parser"}}}
	tests := []struct {
		name string
		call agent.TodoCall
		rec  *session.TodoRecord
		want string
	}{
		{"TodoWrite: last completed", list(done("a"), done("b"), open("c")), nil, "b"},
		{"TodoWrite: planning", list(open("a"), open("b")), nil, "Planning: 2 todos"},
		{"TodoWrite: empty", list(), nil, ""},
		{"TodoWrite ignores the record", list(open("a")), withDone, "Planning: 1 todos"},
		{"task: last completed", agent.TodoCall{}, withDone, "Write the parser"},
		{"task: planning", agent.TodoCall{}, planned, "Planning: 3 todos"},
		{"task: nothing recorded", agent.TodoCall{}, nil, ""},
		{"task: empty record", agent.TodoCall{}, &session.TodoRecord{}, ""},
	}
	for _, tc := range tests {
		if got := todoDescription(tc.call, tc.rec); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
