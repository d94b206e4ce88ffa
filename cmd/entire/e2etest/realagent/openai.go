package realagent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// OpenAI request kinds.
const (
	// KindResponses is an OpenAI Responses call (POST /v1/responses),
	// Codex CLI's only API.
	KindResponses Kind = "responses"
	// KindChat is an OpenAI Chat Completions call (POST
	// /v1/chat/completions): Copilot CLI and the agents after it.
	KindChat Kind = "chat"
)

// ToolSearch is the name under which a script calls Codex's client-side
// tool search (a tool_search_call item), which loads deferred tools such
// as an MCP server's.
const ToolSearch = "tool_search"

// PatchInput is the input of a tool the client offers as a custom
// (free-form) tool, such as Codex's apply_patch: the server sends it as
// the call's raw input text instead of JSON arguments.
type PatchInput string

// responsesRequest is the part of a Responses request the server reads.
type responsesRequest struct {
	Input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		// Tools are what a tool_search_output loaded.
		Tools []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"tools"`
	} `json:"input"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

// contentText joins the text parts of an OpenAI content value: a string,
// or parts with a "text".
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// seq numbers the items and calls the server makes up.
var seq atomic.Int64

func nextID(prefix string) string { return fmt.Sprintf("%s_fake_%04d", prefix, seq.Add(1)) }

// sse writes one server-sent event.
func sse(w http.ResponseWriter, event string, v any) {
	b, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// responses answers a Responses call with the step's items: a message for
// its text, then a function_call (or a custom_tool_call for a PatchInput)
// per tool. Consecutive model items of the conversation are one step.
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, http.StatusBadRequest, "responses request: %v", err)
		return
	}
	var texts []string
	var model, aux []bool
	prevModel := false
	loaded := map[string][2]string{} // namespaced tool name -> namespace, name
	for _, it := range req.Input {
		isModel := it.Type == "function_call" || it.Type == "custom_tool_call" || it.Type == "tool_search_call" || (it.Type == "message" && it.Role == "assistant")
		for _, ns := range it.Tools {
			for _, f := range ns.Tools {
				loaded[ns.Name+"__"+f.Name] = [2]string{ns.Name, f.Name}
			}
		}
		switch {
		case isModel:
			// A tool search the server made on its own is no step; nor is
			// a model item right after another (one response's items).
			texts, model, aux = append(texts, ""), append(model, true), append(aux, prevModel || it.Type == "tool_search_call")
		case it.Type == "message" && it.Role == "user":
			texts, model, aux = append(texts, contentText(it.Content)), append(model, false), append(aux, false)
		case it.Type == "reasoning":
			continue // part of the model's step, whatever follows it
		default:
			texts, model, aux = append(texts, ""), append(model, false), append(aux, false)
		}
		prevModel = isModel
	}
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
		if t.Type == ToolSearch {
			offered[ToolSearch] = true
		}
	}
	st, name, step, ok := s.next(w, KindResponses, texts, model, aux, offered, body)
	if !ok {
		return
	}
	// A tool neither offered nor loaded yet is deferred (an MCP server's,
	// in its namespace): the model searches for it first, as Codex tells
	// it to, and that search counts for the script.
	if offered[ToolSearch] {
		for _, tc := range st.Tools {
			if _, isLoaded := loaded[tc.Name]; !offered[tc.Name] && !isLoaded && tc.Name != ToolSearch {
				st = Step{Tools: []ToolCall{{Name: ToolSearch, Input: map[string]any{"query": strings.ReplaceAll(tc.Name, "_", " "), "limit": 8}}}, Usage: ToolSearchUsage}
				break
			}
		}
	}
	s.record(Request{Kind: KindResponses, Script: name, Step: step, Usage: st.Usage, Markers: markers(texts, model), Body: keptBody(body)})
	var items []map[string]any
	if st.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": nextID("msg"), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": st.Text, "annotations": []any{}}}})
	}
	for _, tc := range st.Tools {
		if tc.Name == ToolSearch {
			items = append(items, map[string]any{"type": "tool_search_call", "id": nextID("tsc"), "status": "completed", "call_id": nextID("call"), "execution": "client", "arguments": tc.Input})
			continue
		}
		if patch, ok := tc.Input.(PatchInput); ok {
			items = append(items, map[string]any{"type": "custom_tool_call", "id": nextID("ctc"), "status": "completed", "call_id": nextID("call"), "name": tc.Name, "input": string(patch)})
			continue
		}
		args, _ := json.Marshal(tc.Input)
		call := map[string]any{"type": "function_call", "id": nextID("fc"), "status": "completed", "call_id": nextID("call"), "name": tc.Name, "arguments": string(args)}
		if ns, ok := loaded[tc.Name]; ok {
			call["namespace"], call["name"] = ns[0], ns[1]
		}
		items = append(items, call)
	}
	id := nextID("resp")
	u := st.Usage
	usage := map[string]any{
		"input_tokens":          u.Input + u.CacheRead,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens":          u.Input + u.CacheRead + u.Output,
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	resp := map[string]any{"id": id, "object": "response", "status": "in_progress", "output": []any{}}
	sse(w, "response.created", map[string]any{"type": "response.created", "response": resp})
	sse(w, "response.in_progress", map[string]any{"type": "response.in_progress", "response": resp})
	for i, it := range items {
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	done := map[string]any{"id": id, "object": "response", "status": "completed", "output": items, "usage": usage}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": done})
}

// chatRequest is the part of a Chat Completions request the server reads.
type chatRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

// chat answers a Chat Completions call, streamed: a role chunk, the
// text, the tool calls (name, then arguments), the finish chunk, the usage
// chunk and [DONE]. A request that offers no tools (a title or summary
// call: OpenCode's first request of a session quotes the prompt, script
// marker included) gets a short plain answer, no script's step.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, http.StatusBadRequest, "chat request: %v", err)
		return
	}
	texts := make([]string, len(req.Messages))
	model := make([]bool, len(req.Messages))
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Function.Name] = true
	}
	for i, m := range req.Messages {
		model[i] = m.Role == "assistant"
		if m.Role == "user" {
			texts[i] = contentText(m.Content)
		}
	}
	var st Step
	name, step := "", 0
	if len(req.Tools) == 0 {
		st = Step{Text: "A scripted session", Usage: Usage{Input: 1, Output: 1}}
	} else {
		var ok bool
		if st, name, step, ok = s.next(w, KindChat, texts, model, nil, offered, body); !ok {
			return
		}
	}
	s.record(Request{Kind: KindChat, Script: name, Step: step, Usage: st.Usage, Markers: markers(texts, model), Body: keptBody(body)})
	id := nextID("chatcmpl")
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1796423617, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	sse(w, "", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if st.Text != "" {
		sse(w, "", chunk(map[string]any{"content": st.Text}, nil))
	}
	for i, tc := range st.Tools {
		args, _ := json.Marshal(tc.Input)
		sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": nextID("call"), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}}}, nil))
		sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": string(args)}}}}, nil))
	}
	finish := "stop"
	if len(st.Tools) > 0 {
		finish = "tool_calls"
	}
	sse(w, "", chunk(map[string]any{}, finish))
	u := st.Usage
	sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1796423617, "model": "fake-model", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": u.Input + u.CacheRead, "completion_tokens": u.Output, "total_tokens": u.Input + u.CacheRead + u.Output,
			"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheRead}}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// models answers GET /v1/models with the one model the clients are told
// to use.
func (s *Server) models(w http.ResponseWriter) {
	writeJSON(w, map[string]any{"object": "list", "data": []any{
		map[string]any{"id": "fake-model", "object": "model", "created": 1796423617, "owned_by": "test"},
		map[string]any{"id": "gpt-5.5", "object": "model", "created": 1796423617, "owned_by": "test"},
	}})
}
