package e2etest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// ShadowFile returns path's content at the tip of the repository's one
// shadow branch, and whether it is there as a file.
func (r *SessionRepo) ShadowFile(path string) (string, bool) {
	r.T.Helper()
	b := ShadowBranches(r.T, r.Dir)
	if len(b) != 1 {
		r.T.Fatalf("shadow branches %q", b)
	}
	out, err := gittest.GitErr(r.Dir, "cat-file", "-p", b[0]+":"+path)
	return out, err == nil
}

// ShadowEntry returns the mode and type of path at the shadow tip ("" when
// absent).
func (r *SessionRepo) ShadowEntry(path string) string {
	r.T.Helper()
	b := ShadowBranches(r.T, r.Dir)
	out, _ := gittest.GitErr(r.Dir, "ls-tree", b[0], "--", path)
	if f := strings.Fields(out); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return ""
}

// Shell runs a script in dir as the agent's Shell tool would.
func Shell(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}
