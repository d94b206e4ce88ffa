package e2etest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitDirs finds the git directory and the common git directory of the
// work tree holding dir by reading .git the way git does (a directory, or
// a file naming a linked worktree's directory whose commondir file leads
// to the main one). The harness asks this after every turn; running
// `git rev-parse` for it cost hundreds of processes a package.
func gitDirs(dir string) (gitDir, common string, ok bool) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return p, p, true
		case err == nil:
			b, err := os.ReadFile(p)
			if err != nil {
				return "", "", false
			}
			g, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
			if !found {
				return "", "", false
			}
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			common = g
			if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
				common = strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(g, common)
				}
			}
			return filepath.Clean(g), filepath.Clean(common), true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", false
		}
		d = parent
	}
}

// GitDir is the absolute git directory of the work tree holding dir.
func GitDir(t testing.TB, dir string) string {
	t.Helper()
	g, _, ok := gitDirs(absDir(t, dir))
	if !ok {
		t.Fatalf("%s is not in a git work tree", dir)
	}
	return g
}

// GitCommonDir is the absolute common git directory (the main work tree's
// .git) of the work tree holding dir.
func GitCommonDir(t testing.TB, dir string) string {
	t.Helper()
	_, c, ok := gitDirs(absDir(t, dir))
	if !ok {
		t.Fatalf("%s is not in a git work tree", dir)
	}
	return c
}

func absDir(t testing.TB, dir string) string {
	t.Helper()
	a, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// IsRepo reports whether dir is inside a git work tree.
func IsRepo(dir string) bool {
	a, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	_, _, ok := gitDirs(a)
	return ok
}
