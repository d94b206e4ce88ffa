package session

import (
	"fmt"
	"testing"

	"github.com/entirecli/entire/agent"
)

func created(id, content string) agent.TodoCall {
	return agent.TodoCall{Created: []agent.Todo{{ID: id, Content: content, Status: agent.TodoStatusPending}}}
}

func updated(id, status string) agent.TodoCall {
	return agent.TodoCall{Updated: []agent.Todo{{ID: id, Status: status}}}
}

func TestTodoRecord(t *testing.T) {
	t.Parallel()
	var r TodoRecord
	last := func() string {
		it, ok := r.LastCompleted()
		if !ok {
			return ""
		}
		return it.Content
	}
	steps := []struct {
		call        agent.TodoCall
		wantChanged bool
		wantLast    string
		wantCreated int
	}{
		{created("1", "Write the parser"), true, "", 1},
		{created("2", "Test it"), true, "", 2},
		{updated("1", agent.TodoStatusInProgress), true, "", 2},
		{updated("1", agent.TodoStatusCompleted), true, "Write the parser", 2},
		{updated("2", agent.TodoStatusCompleted), true, "Test it", 2},
		{updated("2", agent.TodoStatusCompleted), true, "Test it", 2},           // again: still the last
		{updated("2", agent.TodoStatusInProgress), true, "Write the parser", 2}, // reopened
		{updated("9", agent.TodoStatusCompleted), false, "Write the parser", 2}, // unknown, no content
		{agent.TodoCall{Updated: []agent.Todo{{ID: "9", Content: "Renamed elsewhere", Status: agent.TodoStatusCompleted}}}, true, "Renamed elsewhere", 2},
		{updated("9", agent.TodoStatusDeleted), true, "Write the parser", 2},
		{agent.TodoCall{Whole: true, List: []agent.Todo{{Content: "x", Status: agent.TodoStatusCompleted}}}, false, "Write the parser", 2},
		{agent.TodoCall{}, false, "Write the parser", 2},
	}
	for i, s := range steps {
		if changed := r.Apply(s.call); changed != s.wantChanged || last() != s.wantLast || r.Created != s.wantCreated {
			t.Fatalf("step %d %+v: changed %v, last %q, created %d; want %v, %q, %d", i, s.call, changed, last(), r.Created, s.wantChanged, s.wantLast, s.wantCreated)
		}
	}
}

func TestTodoRecordBounded(t *testing.T) {
	t.Parallel()
	var r TodoRecord
	for i := range MaxTodos + 20 {
		r.Apply(created(fmt.Sprint(i), fmt.Sprintf("task %d", i)))
	}
	if r.Created != MaxTodos+20 || len(r.Items) != MaxTodos || r.Items[0].ID != "20" {
		t.Fatalf("created %d, %d items from %q", r.Created, len(r.Items), r.Items[0].ID)
	}
	// A forgotten item cannot be described; a remembered one can.
	r.Apply(updated("3", agent.TodoStatusCompleted))
	if _, ok := r.LastCompleted(); ok {
		t.Errorf("forgotten item described")
	}
	r.Apply(updated("30", agent.TodoStatusCompleted))
	if it, ok := r.LastCompleted(); !ok || it.Content != "task 30" {
		t.Errorf("LastCompleted = %+v, %v", it, ok)
	}
}

// TestTodoRecordRoundTrip: the record survives the state file.
func TestTodoRecordRoundTrip(t *testing.T) {
	t.Parallel()
	st := &State{SessionID: "s", Todos: &TodoRecord{}}
	st.Todos.Apply(created("1", "Run bash"))
	st.Todos.Apply(updated("1", agent.TodoStatusCompleted))
	data, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if it, ok := back.Todos.LastCompleted(); !ok || it.Content != "Run bash" || back.Todos.Created != 1 {
		t.Errorf("decoded %+v from\n%s", back.Todos, data)
	}
}
