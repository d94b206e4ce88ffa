package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// transcriptWriter appends lines to the session's transcript the way
// Claude Code does: one JSON object a line, with the common envelope.
type transcriptWriter struct {
	s      *scenario
	f      *os.File
	parent string
	n      int
}

func (s *scenario) openTranscript() (*transcriptWriter, error) {
	f, err := os.OpenFile(s.transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	return &transcriptWriter{s: s, f: f}, nil
}

// line writes one entry: typ with message, plus extra top-level fields.
func (w *transcriptWriter) line(typ string, message map[string]any, extra map[string]any) error {
	w.n++
	uuid := fmt.Sprintf("0b5e55ed-%04d-4000-8000-%012d", w.s.turn, w.n)
	e := map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": w.s.repo,
		"sessionId": w.s.sessionID, "version": "2.1.197", "gitBranch": "main", "type": typ,
		"message": message, "uuid": uuid, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
	}
	if w.parent != "" {
		e["parentUuid"] = w.parent
	}
	for k, v := range extra {
		e[k] = v
	}
	w.parent = uuid
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("transcript line: %w", err)
	}
	if _, err := w.f.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	return nil
}

func (w *transcriptWriter) close() error { return w.f.Close() }

func (w *transcriptWriter) size() int64 {
	st, err := w.f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

// prompt writes the user's prompt line.
func (w *transcriptWriter) prompt(text string) error {
	return w.line("user", map[string]any{"role": "user", "content": text}, nil)
}

// toolUse writes an assistant line calling a tool, with its usage.
func (w *transcriptWriter) toolUse(id, name string, input map[string]any) error {
	return w.line("assistant", map[string]any{
		"id": "msg_" + id, "type": "message", "role": "assistant", "model": "claude-opus-4-8",
		"content":     []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 12, "cache_creation_input_tokens": 800, "cache_read_input_tokens": 24000, "output_tokens": 180, "service_tier": "standard"},
	}, map[string]any{"requestId": "req_" + id})
}

// toolResult writes the user line answering a tool call, with the
// toolUseResult Claude Code adds.
func (w *transcriptWriter) toolResult(id, content string, toolUseResult any) error {
	return w.line("user", map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}},
	}, map[string]any{"toolUseResult": toolUseResult, "sourceToolUseID": id})
}

// answer writes the turn's final assistant text.
func (w *transcriptWriter) answer(text string) error {
	return w.line("assistant", map[string]any{
		"id": fmt.Sprintf("msg_answer_%d", w.s.turn), "type": "message", "role": "assistant", "model": "claude-opus-4-8",
		"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 30000, "output_tokens": 40, "service_tier": "standard"},
	}, map[string]any{"requestId": fmt.Sprintf("req_answer_%d", w.s.turn)})
}

// startSession runs SessionStart and the first UserPromptSubmit, and writes
// the prompt line.
func (s *scenario) startTurn(w *transcriptWriter, prompt string) error {
	s.turn++
	if s.turn == 1 {
		if err := s.hook("session-start", "SessionStart", "empty transcript", map[string]any{"source": "startup"}); err != nil {
			return err
		}
	}
	if err := s.hook("user-prompt-submit", "UserPromptSubmit", "", map[string]any{"prompt": prompt}); err != nil {
		return err
	}
	return w.prompt(prompt)
}

// endTurn writes the final answer and runs Stop with it as
// last_assistant_message, as Claude Code 2.1 does.
func (s *scenario) endTurn(w *transcriptWriter, answer, input string) error {
	if err := w.answer(answer); err != nil {
		return err
	}
	return s.hook("stop", "Stop", input, map[string]any{"stop_hook_active": false, "last_assistant_message": answer,
		"background_tasks": []any{}, "session_crons": []any{}})
}

// writeTool writes a file as the agent's Write tool does, with its
// transcript lines and PostToolUse hook.
func (s *scenario) writeTool(w *transcriptWriter, rel, content string) error {
	id := fmt.Sprintf("toolu_01BenchWrite%04d", w.n)
	abs := filepath.Join(s.repo, rel)
	input := map[string]any{"file_path": abs, "content": content}
	if err := w.toolUse(id, "Write", input); err != nil {
		return err
	}
	if err := s.writeFile(rel, content); err != nil {
		return err
	}
	resp := map[string]any{"type": "create", "filePath": abs, "content": content, "structuredPatch": []any{}, "originalFile": nil, "userModified": false}
	if err := w.toolResult(id, "File created successfully at: "+abs, resp); err != nil {
		return err
	}
	tsize := fmt.Sprintf("%.0f MB transcript", float64(w.size())/(1<<20))
	return s.hook("post-tool", "PostToolUse", tsize, map[string]any{"tool_name": "Write", "tool_input": input, "tool_use_id": id, "duration_ms": 12,
		"tool_response": resp})
}

// rng is a small deterministic generator (xorshift), so that every run
// writes the same bytes.
type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*r = rng(x)
	return x
}

var words = strings.Fields("func return if err nil ctx value index buffer reader writer config session checkpoint " +
	"commit branch tree blob hash path file line count total state phase turn step result error string int byte")

// sourceText returns about n bytes of Go-like source, different for every
// seed.
func sourceText(seed, n int) string {
	r := rng(uint64(seed)*2654435761 + 1)
	var b strings.Builder
	b.Grow(n + 128)
	fmt.Fprintf(&b, "package pkg%d\n\n", seed%17)
	for b.Len() < n {
		w1, w2, w3 := words[r.next()%uint64(len(words))], words[r.next()%uint64(len(words))], words[r.next()%uint64(len(words))]
		switch r.next() % 4 {
		case 0:
			fmt.Fprintf(&b, "func %s%s(%s string) error {\n", w1, strings.ToUpper(w2[:1])+w2[1:], w3)
		case 1:
			fmt.Fprintf(&b, "\t%s := %s.%s(%d)\n", w1, w2, w3, r.next()%1000)
		case 2:
			fmt.Fprintf(&b, "\tif %s != nil {\n\t\treturn fmt.Errorf(\"%s %s: %%w\", %s)\n\t}\n", w1, w2, w3, w1)
		default:
			fmt.Fprintf(&b, "}\n\n// %s %s the %s.\n", w1, w2, w3)
		}
	}
	return b.String()
}

// logText returns n bytes of a build log: compiler and test lines with
// paths, durations and an occasional commit hash.
func logText(n int) string {
	r := rng(88172645463325252)
	var b strings.Builder
	b.Grow(n + 256)
	for i := 0; b.Len() < n; i++ {
		switch r.next() % 5 {
		case 0:
			fmt.Fprintf(&b, "ok  \tgithub.com/example/app/pkg%d\t%d.%03ds\n", r.next()%90, r.next()%9, r.next()%1000)
		case 1:
			fmt.Fprintf(&b, "=== RUN   Test%s%s/case_%d\n", strings.ToUpper(words[r.next()%uint64(len(words))][:1]), words[r.next()%uint64(len(words))], i)
		case 2:
			fmt.Fprintf(&b, "    --- PASS: Test%d (0.%02ds)\n", i, r.next()%100)
		case 3:
			fmt.Fprintf(&b, "go: downloading example.com/mod%d v1.%d.%d\n", r.next()%500, r.next()%20, r.next()%10)
		default:
			fmt.Fprintf(&b, "[%05d] built object %016x%016x in %dms\n", i, r.next(), r.next(), r.next()%400)
		}
	}
	return b.String()[:n]
}
