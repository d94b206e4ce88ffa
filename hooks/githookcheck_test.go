package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// The repairer installs the shims where git looks for hooks (the common
// dir's hooks/, or core.hooksPath relative to the work tree), and once
// they are current leaves them alone.
func TestGitHookRepairer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		hooksPath string // core.hooksPath; "" for none
		want      string // hooks dir relative to the work tree
	}{
		{name: "default", want: ".git/hooks"},
		{name: "relative hooksPath", hooksPath: ".husky", want: ".husky"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			if tc.hooksPath != "" {
				gittest.Git(t, dir, "config", "core.hooksPath", tc.hooksPath)
			}
			repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, tc.want)
			if got := guessHooksDir(repo); got != want {
				t.Errorf("guessHooksDir = %q, want %q", got, want)
			}
			var warn bytes.Buffer
			repair := gitHookRepairer(repo, &warn)
			if err := repair(false); err != nil {
				t.Fatalf("repair: %v", err)
			}
			if !githook.CurrentIn(want, false) {
				t.Fatalf("hooks in %s not current after a repair", want)
			}
			// A current install is not rewritten.
			path := filepath.Join(want, "post-commit")
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			info, _ := os.Stat(path)
			if err := repair(false); err != nil {
				t.Fatal(err)
			}
			after, _ := os.Stat(path)
			if !os.SameFile(info, after) || !after.ModTime().Equal(info.ModTime()) {
				t.Error("a current hook was rewritten")
			}
			// A development build wants other shims: they are rewritten.
			if err := repair(true); err != nil {
				t.Fatal(err)
			}
			now, _ := os.ReadFile(path)
			if bytes.Equal(now, before) || !githook.CurrentIn(want, true) {
				t.Errorf("local-dev shims not installed:\n%s", now)
			}
		})
	}
}
