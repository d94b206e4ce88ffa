package session

import (
	"slices"

	"github.com/entirecli/entire/agent"
)

// MaxTodos bounds how many items a TodoRecord remembers; the oldest are
// forgotten first.
const MaxTodos = 100

// TodoRecord remembers what the session's todo tools did to items kept by
// ID (Claude Code's TaskCreate and TaskUpdate), so that a later call that
// names an item only by its ID can be described by the item's content. It
// is a plain value, changed under the session's lock (Store.Update).
type TodoRecord struct {
	// Created counts the items created in the session, forgotten ones
	// included.
	Created int `json:"created"`
	// Completions counts the calls that marked an item completed; it
	// orders TodoItem.Done.
	Completions int `json:"completions,omitempty"`
	// Items are the remembered items, oldest first, at most MaxTodos.
	Items []TodoItem `json:"items,omitempty"`
}

// TodoItem is one remembered item.
type TodoItem struct {
	ID string `json:"id"`
	// Content is the item's content (a task's subject) when it was created
	// or last renamed.
	Content string `json:"content,omitempty"`
	Status  string `json:"status,omitempty"`
	// Done is the value of Completions when the item was last marked
	// completed; 0 when it is not completed.
	Done int `json:"done,omitempty"`
}

// Apply records a call that created or changed items by ID (a call that
// rewrote the whole list is not recorded). An update of an item the record
// does not know is remembered only when it names the content. It reports
// whether the record changed.
func (r *TodoRecord) Apply(call agent.TodoCall) bool {
	changed := false
	for _, t := range call.Created {
		r.Created++
		changed = true
		if t.ID == "" {
			continue
		}
		r.Items = slices.DeleteFunc(r.Items, func(it TodoItem) bool { return it.ID == t.ID })
		r.Items = append(r.Items, TodoItem{ID: t.ID, Content: t.Content})
		r.setStatus(&r.Items[len(r.Items)-1], t.Status)
	}
	for _, t := range call.Updated {
		i := slices.IndexFunc(r.Items, func(it TodoItem) bool { return it.ID == t.ID })
		switch {
		case t.ID == "":
			continue
		case t.Status == agent.TodoStatusDeleted:
			if i >= 0 {
				r.Items = slices.Delete(r.Items, i, i+1)
				changed = true
			}
			continue
		case i < 0 && t.Content == "":
			continue
		case i < 0:
			r.Items = append(r.Items, TodoItem{ID: t.ID})
			i = len(r.Items) - 1
		}
		if t.Content != "" {
			r.Items[i].Content = t.Content
		}
		r.setStatus(&r.Items[i], t.Status)
		changed = true
	}
	if n := len(r.Items) - MaxTodos; n > 0 {
		r.Items = slices.Delete(r.Items, 0, n)
	}
	return changed
}

func (r *TodoRecord) setStatus(it *TodoItem, status string) {
	switch status {
	case "":
		return
	case agent.TodoStatusCompleted:
		if it.Status != agent.TodoStatusCompleted {
			r.Completions++
			it.Done = r.Completions
		}
	default:
		it.Done = 0
	}
	it.Status = status
}

// LastCompleted returns the item with content that was marked completed
// last and is still completed.
func (r *TodoRecord) LastCompleted() (TodoItem, bool) {
	var best TodoItem
	for _, it := range r.Items {
		if it.Done > best.Done && it.Content != "" {
			best = it
		}
	}
	return best, best.Done > 0
}
