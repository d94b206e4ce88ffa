package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/gitrepo/gittest"
	"github.com/entirecli/entire/redact/redacttest"
)

// Secrets never become git objects: 25 kinds of secrets planted in a Claude
// Code and a Gemini CLI session (prompts, tool inputs, tool outputs, nested
// JSON strings, escaped JSON inside strings), in a hide and in a note, then
// a commit, a rewind and its undo: no object of the repository holds any of
// them (undo points, which hold the raw transcripts, are files outside git).
func TestSecretsNeverStored(t *testing.T) {
	t.Parallel()
	secrets := redacttest.Secrets(42)
	if len(secrets) < 20 {
		t.Fatalf("only %d secret kinds", len(secrets))
	}
	r := newSessionRepo(t)
	r.hook("session-start", map[string]any{"source": "startup"})

	// Claude Code: every secret in every position of one turn.
	r.hook("user-prompt-submit", map[string]any{"prompt": "use " + secrets[0].Value})
	for i, s := range secrets {
		nested, _ := json.Marshal(map[string]any{"config": map[string]any{s.Key: s.Value}})
		r.appendTranscript(
			map[string]any{"type": "user", "uuid": fmt.Sprintf("p%d", i), "message": map[string]any{"role": "user", "content": "please use " + s.Text}},
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i), "name": "Bash", "input": map[string]any{"command": s.Text, "env": map[string]any{s.Key: s.Value}}}}}},
			map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", i), "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", i), "content": "output: " + s.Text + "\nescaped: " + string(nested)}}},
				"toolUseResult": map[string]any{"stdout": s.Text, "nested": map[string]any{"deeper": map[string]any{s.Key: s.Value}}}},
		)
	}
	// A large tool output with secrets becomes a hide.
	var big strings.Builder
	for big.Len() < 60000 {
		for _, s := range secrets {
			big.WriteString(s.Text + "\n")
		}
	}
	r.hook("post-tool", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input": map[string]any{"command": "cat .env"}, "tool_response": map[string]any{"stdout": big.String(), "stderr": "", "interrupted": false}})
	// A note with secrets.
	var noteText strings.Builder
	for _, s := range secrets[:8] {
		noteText.WriteString(s.Text + "; ")
	}
	if _, errOut, code := r.entire("note", "save", "credentials", noteText.String()); code != 0 {
		t.Fatalf("note save: %s", errOut)
	}
	gittest.WriteFile(t, r.dir, "app.env.example", "KEY=changeme\n")
	r.appendTranscript(map[string]any{"type": "assistant", "uuid": "w1", "message": map[string]any{"id": "msg_w", "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_w", "name": "Write", "input": map[string]any{"file_path": r.dir + "/app.env.example", "content": "KEY=changeme\n"}}}}},
		map[string]any{"type": "assistant", "uuid": "done", "message": map[string]any{"id": "msg_done", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Wrote the example env file."}}}})
	r.hook("stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": "Wrote the example env file."})

	// Gemini CLI: the secrets in prompts and answers of a JSON transcript.
	g := newGeminiSession(r, "9f0e8d7c-gemini-session", false)
	for i, s := range secrets[:10] {
		g.playTurn("deploy with "+s.Text, map[string]string{fmt.Sprintf("g%d.txt", i): "ok\n"})
	}

	r.agentTurn("second turn", map[string]string{"b.txt": "b\n"})
	gittest.Git(t, r.dir, "add", "-A")
	if out, err := gitCmd(t, r, "commit", "-q", "-m", "Work with secrets around").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	r.agentTurn("third turn", map[string]string{"c.txt": "c\n"})
	r.agentTurn("fourth turn", map[string]string{"d.txt": "d\n"})
	var target string
	for _, p := range r.points() {
		if strings.Contains(p.Message, "Third turn") {
			target = p.ID
		}
	}
	if _, errOut, code := r.entire("rewind", "--to", target); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	if _, errOut, code := r.entire("rewind", "--undo"); code != 0 {
		t.Fatalf("undo: %s", errOut)
	}

	// Every object, reachable or not: undo points live outside git.
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = r.dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(bytes.NewReader(out))
	leaks := 0
	for {
		header, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		var hash, typ string
		var size int
		fmt.Sscanf(header, "%s %s %d", &hash, &typ, &size)
		body := make([]byte, size+1)
		if _, err := io.ReadFull(rd, body); err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if bytes.Contains(body, []byte(s.Value)) {
				leaks++
				if leaks <= 10 {
					where := gittest.Git(t, r.dir, "log", "--all", "--format=%h %s", "--find-object="+hash)
					t.Errorf("%s object %s holds the %s secret (in: %s) %q", typ, hash[:12], s.Kind, where, firstBytes(body, 160))
				}
			}
		}
	}
	if leaks > 0 {
		t.Fatalf("%d secret occurrences stored", leaks)
	}
	gittest.Fsck(t, r.dir)
}

func firstBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
