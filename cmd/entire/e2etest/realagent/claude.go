package realagent

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strings"
)

// claudeRequest is the part of an Anthropic Messages request the server
// reads.
type claudeRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// toolSearch is the tool through which Claude Code (2.1.332 and later)
// loads the schema of a tool it offers only by name (MCP tools, WebFetch):
// the model calls it with "select:<name>[,<name>…]" first.
const toolSearch = "ToolSearch"

// ToolSearchUsage is the usage the server reports for a ToolSearch call
// it makes on its own; the call counts for the script it serves.
var ToolSearchUsage = Usage{Input: 7, CacheCreation: 2, CacheRead: 5, Output: 3}

// NotificationAnswer is what the model says on a <task-notification>
// (Claude Code 2.1.332 hands a background subagent's result to the main
// agent as a new user message and makes one more model call on it), and
// NotificationUsage its usage; the call counts for the script whose turn
// started the subagent.
const NotificationAnswer = "Noted the subagent's result."

var NotificationUsage = Usage{Input: 11, CacheCreation: 1, CacheRead: 9, Output: 4}

// IsTaskNotification reports whether a user message's own text is a
// <task-notification> (2.1.332 wraps it in a <system-reminder> saying it
// is no user input) and no script's prompt.
func IsTaskNotification(text string) bool {
	return strings.Contains(text, "<task-notification>") && !markerRe.MatchString(text)
}

// onlyToolSearch reports whether an assistant message's content is
// ToolSearch calls and nothing else.
func onlyToolSearch(content json.RawMessage) bool {
	var blocks []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(content, &blocks) != nil || len(blocks) == 0 {
		return false
	}
	for _, b := range blocks {
		if b.Type != "tool_use" || b.Name != toolSearch {
			return false
		}
	}
	return true
}

// claudeOwnText returns the text a user message wrote itself: its string
// content, or its text blocks (tool results are not its own text).
func claudeOwnText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// stepID is a message ID that is the same for a retry of a request and
// differs between prompts, scripts and steps.
func stepID(prefix, name, prompt string, step int) string {
	h := fnv.New32a()
	h.Write([]byte(prompt))
	return fmt.Sprintf("%s_%s_%08x_%d", prefix, name, h.Sum32(), step)
}

func (s *Server) claude(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	var req claudeRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, http.StatusBadRequest, "claude request: %v", err)
		return
	}
	texts := make([]string, len(req.Messages))
	model := make([]bool, len(req.Messages))
	aux := make([]bool, len(req.Messages))
	notified := 0  // model messages that answered a task notification
	lastUser := -1 // the last user message (2.1.332 puts system messages among them)
	afterNotification := false
	for i, m := range req.Messages {
		switch m.Role {
		case "assistant":
			model[i] = true
			aux[i] = onlyToolSearch(m.Content) || afterNotification
			if afterNotification {
				notified++
			}
			afterNotification = false
		case "user":
			texts[i] = claudeOwnText(m.Content)
			lastUser = i
			afterNotification = IsTaskNotification(texts[i])
		}
	}
	if !req.Stream {
		s.fail(w, http.StatusBadRequest, "claude request without stream")
		return
	}
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	prompt := ""
	for i := len(texts) - 1; i >= 0; i-- {
		if markerRe.MatchString(texts[i]) && !model[i] {
			prompt = texts[i]
			break
		}
	}
	last := len(texts) - 1
	if lastUser >= 0 && IsTaskNotification(texts[lastUser]) && !slices.Contains(model[lastUser:], true) {
		// A background subagent's result: the main agent's one more
		// model call, outside the script.
		name, _, _, ok := s.pick(texts, model, aux, offered)
		if !ok {
			s.fail(w, http.StatusBadRequest, "task notification in a conversation with no known script")
			return
		}
		s.record(Request{Kind: KindClaude, Script: name, Step: -1, Usage: NotificationUsage, Markers: markers(texts, model), Body: keptBody(body)})
		writeClaudeSSE(w, req.Model, stepID("msg", name+"-notified", prompt, notified), stepID("toolu", name+"-notified", prompt, notified), Step{Text: NotificationAnswer, Usage: NotificationUsage})
		return
	}
	st, name, step, ok := s.next(w, KindClaude, texts, model, aux, offered, body)
	if !ok {
		return
	}
	// Tools the client offers only by name are loaded with ToolSearch
	// first, as a model does; once loaded (the previous message was that
	// search) the step's own calls follow.
	var deferred []string
	for _, tc := range st.Tools {
		if !offered[tc.Name] {
			deferred = append(deferred, tc.Name)
		}
	}
	searched := false
	for i := last; i >= 0; i-- {
		if model[i] {
			searched = onlyToolSearch(req.Messages[i].Content)
			break
		}
	}
	if len(deferred) > 0 && offered[toolSearch] && !searched {
		search := Step{Tools: []ToolCall{{Name: toolSearch, Input: map[string]any{"query": "select:" + strings.Join(deferred, ","), "max_results": len(deferred)}}}, Usage: ToolSearchUsage}
		s.record(Request{Kind: KindClaude, Script: name, Step: step, Usage: ToolSearchUsage, Markers: markers(texts, model), Body: keptBody(body)})
		writeClaudeSSE(w, req.Model, stepID("msg", name+"-search", prompt, step), stepID("toolu", name+"-search", prompt, step), search)
		return
	}
	s.record(Request{Kind: KindClaude, Script: name, Step: step, Usage: st.Usage, Markers: markers(texts, model), Body: keptBody(body)})
	writeClaudeSSE(w, req.Model, stepID("msg", name, prompt, step), stepID("toolu", name, prompt, step), st)
}

// writeClaudeSSE answers one step as an Anthropic Messages event stream.
func writeClaudeSSE(w http.ResponseWriter, model, msgID, toolPrefix string, st Step) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                st.Usage.Input,
			"cache_creation_input_tokens": st.Usage.CacheCreation,
			"cache_read_input_tokens":     st.Usage.CacheRead,
			"output_tokens":               1,
		},
	}})
	index := 0
	if st.Text != "" {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": st.Text}})
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	for k, tc := range st.Tools {
		input, _ := json.Marshal(tc.Input)
		event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("%s_%d", toolPrefix, k), "name": tc.Name, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	stop := "end_turn"
	if len(st.Tools) > 0 {
		stop = "tool_use"
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": st.Usage.Output}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
