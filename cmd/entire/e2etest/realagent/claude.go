package realagent

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
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
	for i, m := range req.Messages {
		model[i] = m.Role == "assistant"
		if !model[i] {
			texts[i] = claudeOwnText(m.Content)
		}
	}
	if !req.Stream {
		s.fail(w, http.StatusBadRequest, "claude request without stream")
		return
	}
	st, name, step, ok := s.next(w, KindClaude, texts, model, body)
	if !ok {
		return
	}
	prompt := ""
	for i := len(texts) - 1; i >= 0; i-- {
		if markerRe.MatchString(texts[i]) {
			prompt = texts[i]
			break
		}
	}
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
