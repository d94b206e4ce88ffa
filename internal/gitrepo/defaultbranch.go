package gitrepo

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// DefaultBranch returns the repository's default branch as a revision:
// origin's HEAD ("origin/main", read from refs/remotes/origin/HEAD), else
// a local main or master; "" when unknown.
func (r *Repo) DefaultBranch() string {
	if data, err := os.ReadFile(filepath.Join(r.CommonDir, "refs", "remotes", "origin", "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/remotes/"); ok {
			return ref
		}
	}
	for _, b := range []string{"main", "master"} {
		if h, _ := r.ReadRef(plumbing.ReferenceName("refs/heads/" + b)); !h.IsZero() {
			return b
		}
	}
	return ""
}
