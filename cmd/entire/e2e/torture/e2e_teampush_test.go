//go:build unix && torture

package torture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A metadata push the remote refuses does not stop the user's: git push
// succeeds, its output and `entire status` name the checkpoint not yet on
// the remote, and the next push, once the remote takes it, sends it.
func TestPushThatCannotLandNamesCheckpoints(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	origin := filepath.Join(t.TempDir(), "origin.git")
	gittest.Git(t, filepath.Dir(origin), "init", "-q", "--bare", "-b", "main", origin)
	gittest.Git(t, r.Dir, "push", "-q", origin, "main") // without hooks: the remote has the user's branch
	gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
	gittest.Git(t, r.Dir, "fetch", "-q", "origin")
	decline := filepath.Join(origin, "hooks", "update")
	hook := "#!/bin/sh\ncase \"$1\" in refs/heads/entire/*) echo 'session data refused here' >&2; exit 1;; esac\n"
	if err := os.WriteFile(decline, []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	r.AgentTurn("Add a", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	first := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	out := r.MustGit("push", "origin", "main")
	want := "1 checkpoint(s) not yet on origin: " + first + "; the next push sends them"
	if !strings.Contains(out, want) {
		t.Errorf("push output lacks %q:\n%s", want, out)
	}
	if got, head := gittest.Git(t, origin, "rev-parse", "main"), gittest.Git(t, r.Dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("the user's push did not land: remote main %s, HEAD %s", got, head)
	}
	if e2etest.HasCheckpoint(t, origin, first) {
		t.Fatal("the remote holds the checkpoint its hook refused")
	}
	status, _, code := r.Entire("status")
	if code != 0 || !strings.Contains(status, want) {
		t.Errorf("entire status (exit %d) lacks %q:\n%s", code, want, status)
	}

	if err := os.Remove(decline); err != nil {
		t.Fatal(err)
	}
	r.AgentTurn("Add b", map[string]string{"b.txt": "b\n"})
	r.MustGit("add", "b.txt")
	r.MustGit("commit", "-q", "-m", "Add b")
	second := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if out := r.MustGit("push", "origin", "main"); strings.Contains(out, "not yet on") || strings.Contains(out, "could not push") {
		t.Errorf("second push:\n%s", out)
	}
	for _, id := range []string{first, second} {
		if !e2etest.HasCheckpoint(t, origin, id) {
			t.Errorf("checkpoint %s is not on the remote after the next push", id)
		}
	}
	if status, _, _ := r.Entire("status"); strings.Contains(status, "not yet on") {
		t.Errorf("entire status after the push:\n%s", status)
	}
}

// The first push to an empty remote sends the user's branch first: a forge
// would make the first branch pushed its default. The session logs follow
// once it landed, from a background push.
func TestFirstPushSendsTheUsersBranchFirst(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.AgentTurn("Add a file", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	origin := filepath.Join(t.TempDir(), "origin.git")
	gittest.Git(t, filepath.Dir(origin), "init", "-q", "--bare", "-b", "trunk", origin)
	order := filepath.Join(t.TempDir(), "order")
	hook := "#!/bin/sh\necho \"$1\" >> '" + order + "'\n"
	if err := os.WriteFile(filepath.Join(origin, "hooks", "update"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, r.Dir, "remote", "add", "origin", origin)
	out := r.MustGit("push", "-u", "origin", "main")
	if !strings.Contains(out, "once this push has landed") {
		t.Errorf("push output:\n%s", out)
	}
	// MustGit waited for the background push.
	if !e2etest.HasCheckpoint(t, origin, id) {
		data, _ := os.ReadFile(order)
		t.Fatalf("the session logs never followed; refs received:\n%s\nlog:\n%s", data, e2etest.LogText(r.Dir))
	}
	data, err := os.ReadFile(order)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(data)); len(got) != 2 || got[0] != "refs/heads/main" || got[1] != "refs/heads/entire/checkpoints/v1" {
		t.Errorf("refs arrived in this order: %q", got)
	}
	// Nothing may write into the test's directories once it ends.
	e2etest.AwaitBackground(t)
	// The next push has nothing to wait for: the remote has a branch.
	r.AgentTurn("Add b", map[string]string{"b.txt": "b\n"})
	r.MustGit("add", "b.txt")
	r.MustGit("commit", "-q", "-m", "Add b")
	second := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	r.MustGit("push", "-q", "origin", "main")
	if !e2etest.HasCheckpoint(t, origin, second) {
		t.Errorf("the second push did not send checkpoint %s", second)
	}
}
