package sessions

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Claude Code 2.1 may run Stop before the turn's last assistant line is in
// the transcript (it flushes its transcript every 100 ms);
// last_assistant_message says what it will be. Stop records the work tree
// and returns at once; the process it leaves behind waits for that line
// and writes the step with it.
func TestE2EStopFinishesLateFinalAnswer(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.StartTurn(r.Dir, "Write late.txt")
	r.WriteFiles(map[string]string{"late.txt": "late\n"})
	final := "Wrote late.txt; all done."
	payload, _ := json.Marshal(map[string]any{"session_id": r.SessionID, "transcript_path": r.Transcript, "cwd": r.Dir,
		"hook_event_name": "Stop", "last_assistant_message": final})
	start := time.Now()
	var errOut bytes.Buffer
	cmd := exec.Command(e2etest.EntireBin(), "hooks", "claude-code", "stop")
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("stop: %v\n%s", err, errOut.String())
	}
	if d := time.Since(start); d >= time.Second {
		t.Errorf("stop took %s: it waited for the transcript", d)
	}
	// Written after Stop returned: not the turn's.
	gittest.WriteFile(t, r.Dir, "after.txt", "after\n")
	time.Sleep(max(0, 300*time.Millisecond-time.Since(start)))
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "late-final", "message": map[string]any{"id": "msg_late", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": final}, map[string]any{"type": "tool_use", "id": "x", "name": "Noop", "input": map[string]any{}}},
		"usage":   map[string]any{"input_tokens": 7, "output_tokens": 9}}})
	e2etest.AwaitFinishers(t, r.Dir)
	if !strings.Contains(e2etest.ShadowTranscript(t, r), final) {
		t.Errorf("the checkpoint lacks the final answer written 300 ms after Stop started:\n%s", e2etest.LogText(r.Dir))
	}
	branch := e2etest.ShadowBranches(t, r.Dir)[0]
	if n := gittest.Git(t, r.Dir, "rev-list", "--count", branch); n != "1" {
		t.Errorf("%s steps, want 1", n)
	}
	if files := gittest.Git(t, r.Dir, "ls-tree", "--name-only", branch); !strings.Contains(files, "late.txt") || strings.Contains(files, "after.txt") {
		t.Errorf("the step's files:\n%s", files)
	}
	if u, _ := e2etest.SessionState(t, r.Dir, r.SessionID)["token_usage"].(map[string]any); u["output_tokens"] != float64(5+9) || u["api_call_count"] != float64(2) {
		t.Errorf("token usage after the finish: %v", u)
	}
	if strings.Contains(e2etest.LogText(r.Dir), "does not show the turn's end") {
		t.Errorf("the wait expired:\n%s", e2etest.LogText(r.Dir))
	}
}

// The turn's final line already there: Stop does not wait at all.
func TestE2EStopNoWaitWhenComplete(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	// Two turns with the same final words: the second still finds its own.
	for i := 0; i < 2; i++ {
		r.StartTurn(r.Dir, "Write a file")
		r.WriteFiles(map[string]string{"f.txt": strings.Repeat("x", i+1)})
		start := time.Now()
		r.EndTurn(r.Dir, "Done.")
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("turn %d: stop took %s with the final answer in place", i+1, d)
		}
	}
	if strings.Contains(e2etest.LogText(r.Dir), "does not show the turn's end") {
		t.Errorf("a wait expired:\n%s", e2etest.LogText(r.Dir))
	}
}

// Clients older than Claude Code 2.1 send no last_assistant_message and
// write a hook_progress line for the Stop hook before running it: that
// line ends the wait.
func TestE2EStopOlderClient(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.StartTurn(r.Dir, "Write old.txt")
	r.WriteFiles(map[string]string{"old.txt": "old\n"})
	r.AppendTranscript(
		map[string]any{"type": "assistant", "uuid": "old-final", "message": map[string]any{"id": "msg_old", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": "Old client done."}}}},
		map[string]any{"type": "progress", "uuid": "old-p", "data": map[string]any{"type": "hook_progress", "hookEvent": "Stop", "command": "entire hooks claude-code stop"}})
	start := time.Now()
	r.MustHookIn(r.Dir, "stop", map[string]any{"hook_event_name": "Stop"})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("stop took %s with this turn's hook_progress line in place", d)
	}
	if !strings.Contains(e2etest.ShadowTranscript(t, r), "Old client done.") {
		t.Error("the checkpoint lacks the final answer")
	}
}
