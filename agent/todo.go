package agent

// Todo statuses the todo tools of both built-in agents use. TodoStatusDeleted
// removes an item.
const (
	TodoStatusPending    = "pending"
	TodoStatusInProgress = "in_progress"
	TodoStatusCompleted  = "completed"
	TodoStatusDeleted    = "deleted"
)

// Todo is one item of an agent's todo list as one call of a todo tool
// describes it.
type Todo struct {
	// ID names the item across calls; "" for items of a tool that rewrites
	// the whole list (Claude Code's TodoWrite).
	ID string
	// Content is what the item says (a TodoWrite item's content, a task's
	// subject); "" when the call leaves it unchanged.
	Content string
	// Status is one of the TodoStatus values (or another the agent uses);
	// "" when the call leaves it unchanged.
	Status string
}

// TodoCall is what one call of an agent's todo tool did to the session's
// todo list. A tool either rewrites the list (Whole, with List the list
// after the call) or creates and changes items one by one, by ID (Created,
// Updated). The zero value says nothing about the list.
type TodoCall struct {
	// Whole reports that List is the whole list after the call.
	Whole bool
	List  []Todo
	// Created are the items the call created, each with the ID the agent
	// gave it.
	Created []Todo
	// Updated are the changes the call made to existing items, by ID.
	Updated []Todo
}

// Empty reports whether the call says nothing about the list.
func (c TodoCall) Empty() bool {
	return !c.Whole && len(c.Created) == 0 && len(c.Updated) == 0
}

// TodoTracker is implemented by agents whose todo tools mark progress worth
// an incremental task checkpoint while a subagent runs (SPEC 5.2.9).
type TodoTracker interface {
	// ParseTodoCall reports whether toolName is one of the agent's todo
	// tools (ok) and what the call did, from the hook's tool_input and
	// tool_response. For a todo tool whose input or response cannot be
	// read, it returns ok, the zero TodoCall and an error wrapping
	// ErrMalformedInput.
	ParseTodoCall(toolName string, input, response []byte) (call TodoCall, ok bool, err error)
}
