package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// In a checkout without .entire/.gitignore (here a linked worktree of the
// commit before `entire enable`), the hooks keep .entire/logs/ and
// .entire/tmp/ out of `git add -A` through the common info/exclude (one
// line each, added once), and `entire status` there says what the hooks
// do: enabled, with the defaults.
func TestE2EUnignoredCheckout(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	wt := filepath.Join(t.TempDir(), "old")
	gittest.Git(t, r.Dir, "worktree", "add", "-q", "--detach", wt, "HEAD~1")
	if _, err := os.Stat(filepath.Join(wt, ".entire")); !os.IsNotExist(err) {
		t.Fatalf("the old checkout has .entire: %v", err)
	}
	for i := range 2 {
		r.StartTurn(wt, "Turn in the old checkout")
		r.EndTurn(wt, "done")
		if i == 0 {
			if _, err := os.Stat(filepath.Join(wt, ".entire", "logs")); err != nil {
				t.Fatalf("the hooks wrote no log in the old checkout: %v", err)
			}
		}
	}
	if st := gittest.Git(t, wt, "status", "--porcelain", "--untracked-files=all"); strings.Contains(st, ".entire") {
		t.Errorf("entire's files are untracked, not ignored:\n%s", st)
	}
	exclude, err := os.ReadFile(filepath.Join(r.Dir, ".git", "info", "exclude"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"/.entire/logs/", "/.entire/tmp/"} {
		if n := strings.Count(string(exclude), line+"\n"); n != 1 {
			t.Errorf("info/exclude has %q %d times:\n%s", line, n, exclude)
		}
	}
	out, errOut, code := e2etest.RunEntire(t, wt, r.Env, "", "status")
	if code != 0 || !strings.HasPrefix(out, "Enabled (manual-commit)") || !strings.Contains(out, "Active Sessions:") {
		t.Errorf("status in the old checkout: exit %d\n%s%s", code, out, errOut)
	}
}
