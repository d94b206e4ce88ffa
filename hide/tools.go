package hide

// ToolType is the Type of every hide navigation tool definition.
const ToolType = "hide"

// Names of the hide navigation tools.
const (
	ToolNext   = "hide_next"
	ToolJump   = "hide_jump"
	ToolSearch = "hide_search"
)

// ToolDefinition describes one tool offered to a model.
type ToolDefinition struct {
	// Name is the tool name the model calls.
	Name string `json:"name"`
	// Type groups tools by the package that serves them ("hide").
	Type string `json:"type"`
	// Description tells the model when and how to use the tool.
	Description string `json:"description"`
	// Parameters is a JSON Schema object:
	// {"type":"object","properties":{...},"required":[...]}.
	Parameters map[string]any `json:"parameters"`
}

const hideIDDescription = "The hide ID taken from the [HIDE id=...] header in the content you received."

// ToolDefs returns the three hide navigation tools, always in this order:
// hide_next, hide_jump, hide_search. Each call returns fresh values that the
// caller may modify.
func ToolDefs() []ToolDefinition {
	hideID := func() map[string]any {
		return map[string]any{"type": "string", "description": hideIDDescription}
	}
	return []ToolDefinition{
		{
			Name: ToolNext,
			Type: ToolType,
			Description: "Fetch the next page of a buffered hide. Use it when the [HIDE ...] envelope shows more pages " +
				"(page=N/M with N < M): pass hide_id from the header and the current page number.",
			Parameters: objectSchema(map[string]any{
				"hide_id":      hideID(),
				"current_page": map[string]any{"type": "integer", "description": "The page number shown in the current [HIDE ...] header."},
			}, "hide_id", "current_page"),
		},
		{
			Name:        ToolJump,
			Type:        ToolType,
			Description: "Fetch a specific page of a buffered hide when you know which page you need.",
			Parameters: objectSchema(map[string]any{
				"hide_id": hideID(),
				"page":    map[string]any{"type": "integer", "description": "The 1-indexed page number."},
			}, "hide_id", "page"),
		},
		{
			Name:        ToolSearch,
			Type:        ToolType,
			Description: "Search a buffered hide case-insensitively and return the first page that contains the query.",
			Parameters: objectSchema(map[string]any{
				"hide_id": hideID(),
				"query":   map[string]any{"type": "string", "description": "The case-insensitive search term."},
			}, "hide_id", "query"),
		},
	}
}

func objectSchema(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required}
}
