//go:build torture

package hostile

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A transcript_path that is no transcript of the agent (a FIFO that would
// hang the hook, a device that never ends, a directory, a text file) is
// refused at once with a clear message, without losing what was saved; a
// session ID with control characters (a newline would forge trailer
// lines) is refused too.
func TestE2EHostileTranscriptPaths(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write kept", map[string]string{"kept.txt": "kept\n"})
	refs := entireRefs(t, r.Dir)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "notes.jsonl")
	if err := os.WriteFile(text, []byte("just some text\nmore\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A path whose name would clear the screen: the refusal names it
	// escaped.
	escName := filepath.Join(dir, "notes\x1b[2J.jsonl")
	if err := os.WriteFile(escName, []byte("just some text\nmore\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	js := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) }
	cases := []struct{ name, session, path string }{
		{"escape in path", "sess-1", escName},
		{"fifo", "sess-1", fifo},
		{"device", "sess-1", "/dev/zero"},
		{"directory", "sess-1", dir},
		{"not a transcript", "sess-1", text},
		{"newline in session id", "sess-1\nEntire-Checkpoint: 000000000000", r.Transcript},
		{"escape in session id", "sess-\x1b[2J", r.Transcript},
	}
	for _, tc := range cases {
		for _, verb := range []string{"user-prompt-submit", "stop"} {
			in := js(map[string]any{"session_id": tc.session, "transcript_path": tc.path, "prompt": "hi", "cwd": r.Dir})
			_, errOut, code := e2etest.RunEntireWithin(t, 20*time.Second, r.Dir, r.Env, in, "hooks", "claude-code", verb)
			if code != 1 || strings.TrimSpace(errOut) == "" {
				t.Errorf("claude %s %s: exit %d stderr %q, want 1 with a message", verb, tc.name, code, errOut)
			}
			if strings.Contains(errOut, "\x1b") {
				t.Errorf("claude %s %s: stderr %q prints an escape sequence raw", verb, tc.name, errOut)
			}
			gverb := map[string]string{"user-prompt-submit": "before-agent", "stop": "after-agent"}[verb]
			out, _, code := e2etest.RunEntireWithin(t, 20*time.Second, r.Dir, r.Env, in, "hooks", "gemini", gverb)
			var v map[string]any
			if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
				t.Errorf("gemini %s %s: exit %d stdout %q", gverb, tc.name, code, out)
			}
			if msg, _ := v["systemMessage"].(string); strings.Contains(msg, "\x1b") {
				t.Errorf("gemini %s %s: systemMessage %q carries an escape sequence raw", gverb, tc.name, msg)
			}
		}
	}
	if got := entireRefs(t, r.Dir); got != refs {
		t.Errorf("entire branches changed by hostile input:\n%s\nwas:\n%s", got, refs)
	}
	common := e2etest.GitCommonDir(t, r.Dir)
	entries, _ := os.ReadDir(filepath.Join(common, "entire-sessions"))
	for _, e := range entries {
		if strings.ContainsAny(e.Name(), "\n\x1b") {
			t.Errorf("state file for a hostile session id: %q", e.Name())
		}
	}
	// The session goes on normally afterwards.
	r.PlayTurn("Write more", map[string]string{"more.txt": "more\n"})
}

// A first SIGTERM lets a hook finish what it is writing; a second one ends
// the process at once. Here the hook waits (up to 5 s) for the session's
// lock, which the test holds.
func TestE2ESecondSIGTERMEndsAtOnce(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("First", map[string]string{"a.txt": "a\n"})
	common := e2etest.GitCommonDir(t, r.Dir)
	lock, err := os.OpenFile(filepath.Join(common, "entire-sessions", ".index", "locks", "sess-1.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	opened := e2etest.WatchOpen(t, lock.Name())
	cmd := exec.Command(e2etest.EntireBin(), "hooks", "claude-code", "user-prompt-submit")
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
	cmd.Stdin = strings.NewReader(`{"session_id":"sess-1","transcript_path":"` + r.Transcript + `","prompt":"Second"}`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	opened(10 * time.Second) // the hook is waiting for the lock
	cmd.Process.Signal(syscall.SIGTERM)
	// Two SIGTERMs sent at once may be delivered as one.
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		if d := time.Since(start); d > time.Second {
			t.Errorf("the hook ended %s after the second SIGTERM", d)
		}
		if code := cmd.ProcessState.ExitCode(); code == 2 {
			t.Errorf("exit 2 (blocks Claude Code) after SIGTERM")
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the hook did not end after two SIGTERMs")
	}
}
