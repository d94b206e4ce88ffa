package claudecode_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/claudecode"
)

func TestParseTodoCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, input, response string
		want                        agent.TodoCall
		notTodo                     bool
	}{
		{name: "TodoWrite", tool: "TodoWrite",
			input:    `{"todos":[{"content":"a","activeForm":"doing a","status":"completed"},{"content":"b","activeForm":"doing b","status":"pending"}]}`,
			response: `{"oldTodos":[],"newTodos":[]}`,
			want:     agent.TodoCall{Whole: true, List: []agent.Todo{{Content: "a", Status: "completed"}, {Content: "b", Status: "pending"}}}},
		{name: "TodoWrite without input", tool: "TodoWrite", want: agent.TodoCall{Whole: true}},
		{name: "TaskCreate", tool: "TaskCreate",
			input:    `{"subject":"Run bash","description":"Run the bash step","activeForm":"Running bash"}`,
			response: `{"task":{"id":"1","subject":"Run bash"}}`,
			want:     agent.TodoCall{Created: []agent.Todo{{ID: "1", Content: "Run bash", Status: "pending"}}}},
		{name: "TaskCreate numeric id, subject from response", tool: "TaskCreate",
			input: `{}`, response: `{"task":{"id":7,"subject":"From the response"}}`,
			want: agent.TodoCall{Created: []agent.Todo{{ID: "7", Content: "From the response", Status: "pending"}}}},
		{name: "TaskCreate failed", tool: "TaskCreate", input: `{"subject":"x"}`, response: `"Error: no task list"`},
		{name: "TaskUpdate", tool: "TaskUpdate", input: `{"taskId":"1","status":"completed"}`, response: `{"success":true}`,
			want: agent.TodoCall{Updated: []agent.Todo{{ID: "1", Status: "completed"}}}},
		{name: "TaskUpdate renames", tool: "TaskUpdate", input: `{"taskId":"2","subject":"New name"}`,
			want: agent.TodoCall{Updated: []agent.Todo{{ID: "2", Content: "New name"}}}},
		{name: "TaskUpdate without id", tool: "TaskUpdate", input: `{"status":"completed"}`},
		{name: "other tool", tool: "TaskOutput", input: `{"taskId":"1"}`, notTodo: true},
		{name: "subagent tool", tool: "Agent", input: `{"description":"d"}`, notTodo: true},
	}
	a := claudecode.New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok, err := a.ParseTodoCall(tc.tool, []byte(tc.input), []byte(tc.response))
			if err != nil || ok == tc.notTodo || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseTodoCall = %+v, %v, %v; want %+v, %v", got, ok, err, tc.want, !tc.notTodo)
			}
		})
	}
}

func TestParseTodoCallMalformed(t *testing.T) {
	t.Parallel()
	a := claudecode.New()
	for _, tc := range []struct{ tool, input, response string }{
		{"TodoWrite", `{"todos":"x"}`, ""},
		{"TaskCreate", `{"subject":1}`, `{"task":{"id":"1"}}`},
		{"TaskCreate", `{"subject":"s"}`, `{"task":{"id":true}}`},
		{"TaskUpdate", `[`, ""},
	} {
		got, ok, err := a.ParseTodoCall(tc.tool, []byte(tc.input), []byte(tc.response))
		if !ok || !errors.Is(err, agent.ErrMalformedInput) || !got.Empty() {
			t.Errorf("%s %s %s: %+v, %v, %v; want a todo tool, the zero call and ErrMalformedInput", tc.tool, tc.input, tc.response, got, ok, err)
		}
	}
}

// TestParseTodoCallRealPayload parses the PostToolUse payload of a real
// TaskCreate (Claude Code 2.1.197) the way the post-todo hook does.
func TestParseTodoCallRealPayload(t *testing.T) {
	t.Parallel()
	payload := agenttest.HookPayloadFile(t, "claude-code-2.1.197", "claude-code-post-todo.json")
	a := claudecode.New()
	in, err := a.ParseHookInput(agent.HookPostToolUse, bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	call, ok, err := a.ParseTodoCall(in.ToolName, in.ToolInput, in.ToolResponse)
	want := agent.TodoCall{Created: []agent.Todo{{ID: "1", Content: "Run bash", Status: "pending"}}}
	if err != nil || !ok || !reflect.DeepEqual(call, want) {
		t.Errorf("%s: ParseTodoCall = %+v, %v, %v; want %+v", in.ToolName, call, ok, err, want)
	}
}

func FuzzParseTodoCall(f *testing.F) {
	f.Add(uint8(0), []byte(`{"todos":[{"content":"a","status":"completed"}]}`), []byte(`{}`))
	f.Add(uint8(1), []byte(`{"subject":"Run bash","description":"d","activeForm":"Running"}`), []byte(`{"task":{"id":"1","subject":"Run bash"}}`))
	f.Add(uint8(1), []byte(`{}`), []byte(`{"task":{"id":12.5e3}}`))
	f.Add(uint8(2), []byte(`{"taskId":"1","status":"completed"}`), []byte(`"ok"`))
	f.Add(uint8(2), []byte(`{"taskId":null}`), []byte(nil))
	tools := []string{"TodoWrite", "TaskCreate", "TaskUpdate", "TaskOutput"}
	f.Fuzz(func(t *testing.T, tool uint8, input, response []byte) {
		name := tools[int(tool)%len(tools)]
		call, ok, err := claudecode.New().ParseTodoCall(name, input, response)
		if ok != (name != "TaskOutput") {
			t.Fatalf("%s: ok = %v", name, ok)
		}
		if err != nil && (!errors.Is(err, agent.ErrMalformedInput) || !call.Empty()) {
			t.Fatalf("%s: %+v with error %v", name, call, err)
		}
		for _, td := range append(call.Created, call.Updated...) {
			if td.ID == "" {
				t.Fatalf("%s: item without ID %+v", name, call)
			}
		}
	})
}
