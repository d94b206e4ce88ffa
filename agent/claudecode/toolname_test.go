package claudecode_test

import (
	"testing"

	"github.com/entirecli/entire/agent/claudecode"
)

// A payload without tool_name is named by its verb (pre-task, post-task) or
// by the shape of its tool_input (post-todo), as ParseTodoCall reads it.
func TestToolNameForVerb(t *testing.T) {
	t.Parallel()
	a := &claudecode.Agent{}
	for _, tc := range []struct {
		verb, input, want string
	}{
		{claudecode.VerbPreTask, `{"description":"d","subagent_type":"general-purpose"}`, "Task"},
		{claudecode.VerbPostTask, ``, "Task"},
		{claudecode.VerbPostTodo, `{"todos":[{"content":"a","status":"completed"}]}`, "TodoWrite"},
		{claudecode.VerbPostTodo, `{"taskId":"1","status":"completed"}`, "TaskUpdate"},
		{claudecode.VerbPostTodo, `{"subject":"Run bash","description":"d","activeForm":"Running"}`, "TaskCreate"},
		{claudecode.VerbPostTodo, `{"other":1}`, ""},
		{claudecode.VerbPostTodo, `[1]`, ""},
		{claudecode.VerbPostTodo, ``, ""},
		{claudecode.VerbStop, `{"todos":[]}`, ""},
	} {
		if got := a.ToolNameForVerb(tc.verb, []byte(tc.input)); got != tc.want {
			t.Errorf("ToolNameForVerb(%s, %s) = %q, want %q", tc.verb, tc.input, got, tc.want)
		}
		if tc.want == "" {
			continue
		}
		if tc.verb == claudecode.VerbPostTodo {
			if _, ok, _ := a.ParseTodoCall(tc.want, []byte(tc.input), nil); !ok {
				t.Errorf("%s is no todo tool of ParseTodoCall", tc.want)
			}
		} else if _, ok := a.Delegation(tc.want, []byte(tc.input)); !ok {
			t.Errorf("%s is no subagent tool of Delegation", tc.want)
		}
	}
}
