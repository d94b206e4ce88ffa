package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/strategy/translog"
)

func TestResetHead(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
	shadow := r.ShadowBranches()
	if len(shadow) != 1 || r.State("sess-1") == nil {
		t.Fatalf("setup: branches %v", shadow)
	}
	logs := filepath.Join(r.Dir, ".git", translog.DirName, "sess-1.*")
	if m, _ := filepath.Glob(logs); len(m) == 0 {
		t.Fatal("setup: the turn left no transcript log")
	}

	// No terminal and no --force: refuses, deletes nothing.
	_, stderr, code := r.Entire("reset")
	if code != 1 || !strings.Contains(stderr, "entire reset --force") {
		t.Errorf("reset without terminal: %d %q", code, stderr)
	}
	if len(r.ShadowBranches()) != 1 || r.State("sess-1") == nil {
		t.Fatal("reset without confirmation deleted something")
	}

	// An active session blocks a reset without --force (exit 0).
	r.Hook("user-prompt-submit", map[string]any{"prompt": "more"})
	_, stderr, code = r.Entire("reset")
	if code != 0 || !strings.Contains(stderr, "sess-1 (phase: active)") || !strings.Contains(stderr, "--force") {
		t.Errorf("reset with an active session: %d %q", code, stderr)
	}
	if r.State("sess-1") == nil {
		t.Fatal("active session reset without --force")
	}

	_, stderr, code = r.Entire("reset", "--force")
	if code != 0 || !strings.Contains(stderr, "Cleared session state for sess-1") || !strings.Contains(stderr, "Deleted shadow branch "+shadow[0]) {
		t.Errorf("reset --force: %d %q", code, stderr)
	}
	if len(r.ShadowBranches()) != 0 || r.State("sess-1") != nil {
		t.Errorf("reset --force left branches %v or the state", r.ShadowBranches())
	}
	if m, _ := filepath.Glob(logs); len(m) != 0 {
		t.Errorf("reset --force left the session's transcript logs %v", m)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "hello.txt")); string(b) != "hello\n" {
		t.Errorf("reset touched the work tree: %q", b)
	}
	_, stderr, code = r.Entire("reset", "--force")
	if code != 0 || !strings.Contains(stderr, "Nothing to reset for "+shadow[0]) {
		t.Errorf("second reset: %d %q", code, stderr)
	}
}

func TestResetSession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.SwitchSession("sess-2")
	r.AgentTurn("Add a farewell", map[string]string{"bye.txt": "bye\n"})
	if len(r.ShadowBranches()) != 1 {
		t.Fatalf("setup: branches %v", r.ShadowBranches())
	}

	for _, bad := range []struct{ id, want string }{
		{"no-such-session", "session no-such-session not found"},
		{"../escape", "invalid session ID"},
	} {
		_, stderr, code := r.Entire("reset", "--session", bad.id, "--force")
		if code != 1 || !strings.Contains(stderr, bad.want) {
			t.Errorf("reset --session %s: %d %q", bad.id, code, stderr)
		}
	}
	if _, stderr, code := r.Entire("reset", "--session", "sess-1"); code != 1 || !strings.Contains(stderr, "Phase: idle, Checkpoints: 1") || !strings.Contains(stderr, "--force") {
		t.Errorf("reset --session without terminal: %d %q", code, stderr)
	}

	_, stderr, code := r.Entire("reset", "--session", "sess-1", "--force")
	if code != 0 || !strings.Contains(stderr, "Session sess-1 has been reset. File changes remain in the working directory.") {
		t.Errorf("reset --session sess-1: %d %q", code, stderr)
	}
	if r.State("sess-1") != nil || r.State("sess-2") == nil {
		t.Error("reset --session sess-1 removed the wrong states")
	}
	if len(r.ShadowBranches()) != 1 {
		t.Error("shadow branch deleted while sess-2 still has checkpoints on it")
	}
	if _, _, code := r.Entire("reset", "--session", "sess-2", "--force"); code != 0 {
		t.Fatalf("reset --session sess-2 exit %d", code)
	}
	if len(r.ShadowBranches()) != 0 {
		t.Errorf("shadow branch kept after its last session was reset: %v", r.ShadowBranches())
	}
}

func TestResetRefusals(t *testing.T) {
	t.Parallel()
	_, stderr, code := e2etest.RunEntire(t, t.TempDir(), nil, "", "reset")
	if code != 1 || !strings.Contains(stderr, "not a git repository") {
		t.Errorf("reset outside a repository: %d %q", code, stderr)
	}
	r := e2etest.NewAutoCommitRepo(t)
	_, stderr, code = r.Entire("reset", "--force")
	if code != 1 || !strings.Contains(stderr, "strategy auto-commit does not support reset") {
		t.Errorf("reset with auto-commit: %d %q", code, stderr)
	}
}
