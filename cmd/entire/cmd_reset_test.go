package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/translog"
)

// entire runs the built binary in the session repository.
func (r *sessionRepo) entire(args ...string) (stdout, stderr string, code int) {
	r.t.Helper()
	return runEntire(r.t, r.dir, r.env, "", args...)
}

// mustEntire is entire that fails the test on a non-zero exit and returns
// stdout.
func (r *sessionRepo) mustEntire(args ...string) string {
	r.t.Helper()
	out, errOut, code := r.entire(args...)
	if code != 0 {
		r.t.Fatalf("entire %s: exit %d: %s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// shadowBranches lists the shadow branches of the repository.
func (r *sessionRepo) shadowBranches() []string {
	r.t.Helper()
	out := gittest.Git(r.t, r.dir, "branch", "--list", "entire/*", "--format=%(refname:short)")
	var bs []string
	for _, b := range strings.Fields(out) {
		if b != "entire/checkpoints/v1" {
			bs = append(bs, b)
		}
	}
	return bs
}

// statePath is the state file of a session.
func (r *sessionRepo) statePath(id string) string {
	return filepath.Join(r.dir, ".git", "entire-sessions", id+".json")
}

// state reads a session's state file as a map (nil when absent).
func (r *sessionRepo) state(id string) map[string]any {
	r.t.Helper()
	b, err := os.ReadFile(r.statePath(id))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.t.Fatal(err)
	}
	return m
}

// switchSession makes the following hooks those of another session with
// its own transcript.
func (r *sessionRepo) switchSession(id string) {
	r.sessionID = id
	r.transcript = filepath.Join(filepath.Dir(r.transcript), id+".jsonl")
}

func TestResetHead(t *testing.T) {
	t.Parallel()
	r := newSessionRepo(t)
	r.agentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
	shadow := r.shadowBranches()
	if len(shadow) != 1 || r.state("sess-1") == nil {
		t.Fatalf("setup: branches %v", shadow)
	}
	logs := filepath.Join(r.dir, ".git", translog.DirName, "sess-1.*")
	if m, _ := filepath.Glob(logs); len(m) == 0 {
		t.Fatal("setup: the turn left no transcript log")
	}

	// No terminal and no --force: refuses, deletes nothing.
	_, stderr, code := r.entire("reset")
	if code != 1 || !strings.Contains(stderr, "entire reset --force") {
		t.Errorf("reset without terminal: %d %q", code, stderr)
	}
	if len(r.shadowBranches()) != 1 || r.state("sess-1") == nil {
		t.Fatal("reset without confirmation deleted something")
	}

	// An active session blocks a reset without --force (exit 0).
	r.hook("user-prompt-submit", map[string]any{"prompt": "more"})
	_, stderr, code = r.entire("reset")
	if code != 0 || !strings.Contains(stderr, "sess-1 (phase: active)") || !strings.Contains(stderr, "--force") {
		t.Errorf("reset with an active session: %d %q", code, stderr)
	}
	if r.state("sess-1") == nil {
		t.Fatal("active session reset without --force")
	}

	_, stderr, code = r.entire("reset", "--force")
	if code != 0 || !strings.Contains(stderr, "Cleared session state for sess-1") || !strings.Contains(stderr, "Deleted shadow branch "+shadow[0]) {
		t.Errorf("reset --force: %d %q", code, stderr)
	}
	if len(r.shadowBranches()) != 0 || r.state("sess-1") != nil {
		t.Errorf("reset --force left branches %v or the state", r.shadowBranches())
	}
	if m, _ := filepath.Glob(logs); len(m) != 0 {
		t.Errorf("reset --force left the session's transcript logs %v", m)
	}
	if b, _ := os.ReadFile(filepath.Join(r.dir, "hello.txt")); string(b) != "hello\n" {
		t.Errorf("reset touched the work tree: %q", b)
	}
	_, stderr, code = r.entire("reset", "--force")
	if code != 0 || !strings.Contains(stderr, "Nothing to reset for "+shadow[0]) {
		t.Errorf("second reset: %d %q", code, stderr)
	}
}

func TestResetSession(t *testing.T) {
	t.Parallel()
	r := newSessionRepo(t)
	r.agentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.switchSession("sess-2")
	r.agentTurn("Add a farewell", map[string]string{"bye.txt": "bye\n"})
	if len(r.shadowBranches()) != 1 {
		t.Fatalf("setup: branches %v", r.shadowBranches())
	}

	for _, bad := range []struct{ id, want string }{
		{"no-such-session", "session no-such-session not found"},
		{"../escape", "invalid session ID"},
	} {
		_, stderr, code := r.entire("reset", "--session", bad.id, "--force")
		if code != 1 || !strings.Contains(stderr, bad.want) {
			t.Errorf("reset --session %s: %d %q", bad.id, code, stderr)
		}
	}
	if _, stderr, code := r.entire("reset", "--session", "sess-1"); code != 1 || !strings.Contains(stderr, "Phase: idle, Checkpoints: 1") || !strings.Contains(stderr, "--force") {
		t.Errorf("reset --session without terminal: %d %q", code, stderr)
	}

	_, stderr, code := r.entire("reset", "--session", "sess-1", "--force")
	if code != 0 || !strings.Contains(stderr, "Session sess-1 has been reset. File changes remain in the working directory.") {
		t.Errorf("reset --session sess-1: %d %q", code, stderr)
	}
	if r.state("sess-1") != nil || r.state("sess-2") == nil {
		t.Error("reset --session sess-1 removed the wrong states")
	}
	if len(r.shadowBranches()) != 1 {
		t.Error("shadow branch deleted while sess-2 still has checkpoints on it")
	}
	if _, _, code := r.entire("reset", "--session", "sess-2", "--force"); code != 0 {
		t.Fatalf("reset --session sess-2 exit %d", code)
	}
	if len(r.shadowBranches()) != 0 {
		t.Errorf("shadow branch kept after its last session was reset: %v", r.shadowBranches())
	}
}

func TestResetRefusals(t *testing.T) {
	t.Parallel()
	_, stderr, code := runEntire(t, t.TempDir(), nil, "", "reset")
	if code != 1 || !strings.Contains(stderr, "not a git repository") {
		t.Errorf("reset outside a repository: %d %q", code, stderr)
	}
	r := newAutoCommitRepo(t)
	_, stderr, code = r.entire("reset", "--force")
	if code != 1 || !strings.Contains(stderr, "strategy auto-commit does not support reset") {
		t.Errorf("reset with auto-commit: %d %q", code, stderr)
	}
}
