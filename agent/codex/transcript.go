package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/entirecli/entire/agent"
)

// rolloutLine is one line of a rollout transcript:
// {"timestamp", "ordinal", "type", "payload"}.
type rolloutLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// item is the part of a payload the reader decodes: a response_item
// (message, custom_tool_call, function_call) or a token_usage_record.
type item struct {
	Type      string        `json:"type"`
	ID        string        `json:"id"`
	Role      string        `json:"role"`
	Content   []contentPart `json:"content"`
	Name      string        `json:"name"`
	Namespace string        `json:"namespace"`
	Input     string        `json:"input"`
	Arguments string        `json:"arguments"`
	CallID    string        `json:"call_id"`
	Usage     *usage        `json:"usage"`
}

type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// usage is an OpenAI Responses usage object; input_tokens counts the
// cached ones too.
type usage struct {
	InputTokens      int `json:"input_tokens"`
	CachedInput      int `json:"cached_input_tokens"`
	CacheWriteInput  int `json:"cache_write_input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	ReasoningOutputs int `json:"reasoning_output_tokens"`
}

// tokens converts u: fresh input is the input not read from cache.
func (u *usage) tokens() agent.TokenUsage {
	fresh := u.InputTokens - u.CachedInput - u.CacheWriteInput
	if fresh < 0 {
		fresh = 0
	}
	return agent.TokenUsage{InputTokens: fresh, CacheReadTokens: u.CachedInput, CacheCreationTokens: u.CacheWriteInput,
		OutputTokens: u.OutputTokens, APICallCount: 1}
}

// Tool names as the rollout records them.
const (
	toolApplyPatch  = "apply_patch"
	toolExecCommand = "exec_command"
)

// parsed is what one rollout line gives.
type parsed struct {
	entries []agent.Entry
	usage   *agent.TokenUsage
}

// parseLine decodes one rollout line. Developer messages, the user
// messages Codex writes itself (<environment_context>, instructions) and
// tool outputs give nothing.
func parseLine(line []byte) parsed {
	var l rolloutLine
	if json.Unmarshal(line, &l) != nil || len(l.Payload) == 0 || l.Payload[0] != '{' {
		return parsed{}
	}
	switch l.Type {
	case "response_item", "token_usage_record":
	default:
		return parsed{}
	}
	var it item
	if json.Unmarshal(l.Payload, &it) != nil {
		return parsed{}
	}
	at := agent.ParseTime(l.Timestamp)
	if l.Type == "token_usage_record" {
		if it.Usage == nil {
			return parsed{}
		}
		u := it.Usage.tokens()
		return parsed{usage: &u}
	}
	var out parsed
	switch it.Type {
	case "message":
		text := messageText(it.Content)
		switch it.Role {
		case "user":
			if t := agent.PromptText(text); t != "" && !isInjected(t) {
				out.entries = append(out.entries, agent.Entry{Role: agent.RoleUser, Text: t, ID: it.ID, Time: at})
			}
		case "assistant":
			if t := strings.TrimSpace(text); t != "" {
				out.entries = append(out.entries, agent.Entry{Role: agent.RoleAssistant, Text: t, ID: it.ID, Time: at})
			}
		}
	case "custom_tool_call":
		e := agent.Entry{Role: agent.RoleTool, Tool: it.Name, ID: it.CallID, Time: at}
		if it.Name == toolApplyPatch {
			e.Files = PatchFiles(it.Input)
			e.Text = strings.Join(e.Files, ", ")
		}
		if e.Tool != "" {
			out.entries = append(out.entries, e)
		}
	case "function_call":
		if it.Name == "" {
			break
		}
		tool := it.Name
		if it.Namespace != "" {
			tool = it.Namespace + "__" + it.Name // an MCP tool: mcp__<server>__<tool>
		}
		e := agent.Entry{Role: agent.RoleTool, Tool: tool, ID: it.CallID, Time: at, Text: callDetail(it.Arguments)}
		if it.Name == toolApplyPatch {
			var in struct {
				Input string `json:"input"`
			}
			if json.Unmarshal([]byte(it.Arguments), &in) == nil {
				e.Files = PatchFiles(in.Input)
				e.Text = strings.Join(e.Files, ", ")
			}
		}
		out.entries = append(out.entries, e)
	}
	return out
}

// messageText joins the text parts of a message.
func messageText(parts []contentPart) string {
	var texts []string
	for _, p := range parts {
		if p.Text != "" && (p.Type == "input_text" || p.Type == "output_text" || p.Type == "text") {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n\n")
}

// isInjected reports whether a user message is one Codex writes itself:
// one element such as <environment_context>…</environment_context> or
// <user_instructions>…</user_instructions>, not a person's prompt.
func isInjected(text string) bool {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "<") || !strings.HasSuffix(t, ">") {
		return false
	}
	end := strings.IndexAny(t, "> ")
	if end < 2 {
		return false
	}
	name := t[1:end]
	return strings.HasSuffix(t, "</"+name+">")
}

// callDetail returns the most telling argument of a function call: the
// command of exec_command, else a path, a query or a description.
func callDetail(arguments string) string {
	var a struct {
		Cmd         any    `json:"cmd"`
		Command     any    `json:"command"`
		Path        string `json:"path"`
		Query       string `json:"query"`
		Description string `json:"description"`
	}
	if json.Unmarshal([]byte(arguments), &a) != nil {
		return ""
	}
	for _, v := range []any{a.Cmd, a.Command} {
		switch c := v.(type) {
		case string:
			if c != "" {
				return c
			}
		case []any:
			var parts []string
			for _, p := range c {
				if s, ok := p.(string); ok {
					parts = append(parts, s)
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, " ")
			}
		}
	}
	for _, s := range []string{a.Path, a.Query, a.Description} {
		if s != "" {
			return s
		}
	}
	return ""
}

// PatchFiles returns the files an apply_patch patch writes, in order
// without duplicates, as the patch names them (relative to the session's
// working directory): each "*** Add File:", "*** Update File:" and
// "*** Delete File:" path, and the target of a "*** Move to:".
func PatchFiles(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, marker := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, marker); ok {
				if p = strings.TrimSpace(p); p != "" {
					out = agent.AppendUnique(out, p)
				}
			}
		}
	}
	return out
}

// ReadRecord reads one rollout line: a person's prompt, an assistant
// message, or a tool call (apply_patch with the files its patch writes).
func (a *Agent) ReadRecord(record []byte) agent.Record {
	return agent.Record{Entries: parseLine(record).entries}
}

// ScanTranscript analyses the complete lines of a rollout transcript from
// `from` on, reading only what was appended since an earlier scan.
func (a *Agent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	return agent.ScanJSONL(path, from, func(line []byte) (agent.Record, *agent.TokenUsage) {
		p := parseLine(line)
		return agent.Record{Entries: p.entries}, p.usage
	})
}

// RecognizeTranscript reports whether content starts with a rollout's
// session_meta line.
func (a *Agent) RecognizeTranscript(content []byte) bool {
	first, _, _ := strings.Cut(string(content), "\n")
	var l rolloutLine
	return json.Unmarshal([]byte(first), &l) == nil && l.Type == "session_meta" && len(l.Payload) > 0 && l.Payload[0] == '{'
}

// SniffTranscript accepts the first line of a rollout: an object with a
// string "type" and a "payload".
func (a *Agent) SniffTranscript(line []byte) error {
	var l rolloutLine
	if err := json.Unmarshal(line, &l); err != nil {
		return fmt.Errorf("first line is not a JSON object: %w", err)
	}
	if l.Type == "" || len(l.Payload) == 0 {
		return errors.New(`first line has no "type" and "payload"`)
	}
	return nil
}
