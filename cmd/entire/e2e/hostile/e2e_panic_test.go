//go:build torture

package hostile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/panics"
)

// A panic in a hook, in its own goroutine or in one it started, is
// recovered: Claude Code gets exit 1 (a non-blocking error, never Go's 2,
// which blocks Stop and UserPromptSubmit), Gemini CLI exit 0 with JSON,
// the log gets the stack, status counts the failure, and what was already
// stored stays. A panic in the process that writes the turn's step after
// Stop returned is recovered the same way: logged with its stack, counted
// by status, and the turn end stays pending until a later run writes it.
func TestE2EPanicsRecovered(t *testing.T) {
	t.Parallel()
	hookSites := map[string]bool{"hook": true}
	for _, site := range []string{"hook", "finish-turn", "redact-lines", "redact-rules"} {
		t.Run(site, func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			r.PlayTurn("First turn", map[string]string{"a.txt": "a\n"})
			refs := entireRefs(t, r.Dir)
			r.StartTurn(r.Dir, "Second turn")
			r.WriteFiles(map[string]string{"b.txt": "b\n"})
			// Large enough for the transcript to be redacted on several
			// goroutines.
			r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "big", "message": map[string]any{"id": "msg_big", "role": "assistant",
				"content": []any{map[string]any{"type": "text", "text": strings.Repeat("lorem ipsum dolor sit amet\n", 12000)}}}})
			r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "last", "message": map[string]any{"id": "msg_last", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok"}}}})
			env := append(r.Env, panics.TestEnv+"="+site)
			payload := func() string {
				b, _ := json.Marshal(map[string]any{"session_id": r.SessionID, "transcript_path": r.Transcript, "cwd": r.Dir, "hook_event_name": "Stop", "last_assistant_message": "ok"})
				return string(b)
			}
			_, errOut, code := e2etest.RunEntire(t, r.Dir, env, payload(), "hooks", "claude-code", "stop")
			switch {
			case hookSites[site] && (code != 1 || !strings.Contains(errOut, "panic")):
				t.Fatalf("claude stop with a panic at %s: exit %d, stderr %q; want 1 naming the panic", site, code, errOut)
			case !hookSites[site] && code != 0:
				t.Fatalf("claude stop with a panic at %s after it returned: exit %d, stderr %q; want 0", site, code, errOut)
			}
			out, _, code := e2etest.RunEntire(t, r.Dir, env, payload(), "hooks", "gemini", "after-agent")
			var v map[string]any
			if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
				t.Errorf("gemini after-agent with a panic at %s: exit %d stdout %q", site, code, out)
			}
			if log := e2etest.LogText(r.Dir); !strings.Contains(log, "injected for tests at "+site) || !strings.Contains(log, "goroutine") {
				t.Errorf("log lacks the panic and its stack:\n%s", log)
			}
			now := entireRefs(t, r.Dir)
			for _, line := range strings.Split(refs, "\n") {
				if name, _, _ := strings.Cut(line, " "); !strings.Contains(now, name) {
					t.Errorf("ref %s lost after the panic:\n%s", name, now)
				}
			}
			if out, _, _ := e2etest.RunEntire(t, r.Dir, r.Env, "", "status"); !strings.Contains(out, "failure") {
				t.Errorf("status does not count the panic:\n%s", out)
			}
			if hookSites[site] {
				return
			}
			if st := e2etest.SessionState(t, r.Dir, r.SessionID); st["pending_turn_ends"] == nil {
				t.Fatalf("no turn end left pending after the panics: %v", st)
			}
			// Without the panic, the next command that reads steps writes
			// the pending one.
			if _, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "rewind", "--list"); code != 0 {
				t.Fatalf("rewind --list: %d %s", code, errOut)
			}
			branch := e2etest.ShadowBranches(t, r.Dir)[0]
			if got := gittest.Git(t, r.Dir, "show", branch+":b.txt"); got != "b" {
				t.Errorf("the pending step's b.txt = %q", got)
			}
			if !strings.Contains(e2etest.ShadowTranscript(t, r), `"uuid":"last"`) {
				t.Error("the pending step's transcript lacks the turn's lines")
			}
		})
	}
}

// A panic while a condensation builds its line record (on goroutines of
// its own) costs the record only: the commit is linked, the checkpoint
// has its transcript and prompts, and the log has the panic's stack.
func TestE2ELineRecordPanicKeepsTheCheckpoint(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write a", map[string]string{"a.txt": "a\n"})
	id, _ := r.Commit("add a", []string{panics.TestEnv + "=line-record"}, "a.txt")
	if got := r.SlotFile(id, "prompt.txt"); !strings.Contains(got, "Write a") {
		t.Errorf("prompt.txt %q", got)
	}
	if out, err := r.GitIn(r.Dir, nil, "cat-file", "-e", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/0/lines.json"); err == nil {
		t.Errorf("a line record after the panic: %s", out)
	}
	if log := e2etest.LogText(r.Dir); !strings.Contains(log, "injected for tests at line-record") || !strings.Contains(log, "goroutine") {
		t.Errorf("log lacks the panic and its stack:\n%s", log)
	}
	// Without the panic the next commit has its record.
	r.PlayTurn("Write b", map[string]string{"b.txt": "b\n"})
	id2, _ := r.Commit("add b", nil, "b.txt")
	if got := r.SlotFile(id2, "lines.json"); !strings.Contains(got, `"b.txt"`) {
		t.Errorf("lines.json %q", got)
	}
}
