package push

import (
	"errors"
	"strings"
	"testing"

	"github.com/entirecli/entire/gitrepo"
	"github.com/entirecli/entire/gitrepo/gittest"
)

func TestGuard(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.Git(t, dir, "remote", "add", "origin", "https://example.com/me/repo.git")
	gittest.Git(t, dir, "remote", "add", "fork", "https://example.com/other/repo.git")
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("a", 40)
	line := func(b string) string {
		return "refs/heads/" + b + " " + sha + " refs/heads/" + b + " " + zeroSHA + "\n"
	}
	all := line("main") + line("entire/checkpoints/v1") + line("entire/abc1234-e3b0c4")
	tests := []struct {
		name    string
		remote  string
		refs    string
		push    bool
		refused string
	}{
		{"plain push", "fork", line("main"), true, ""},
		{"--all to a fork", "fork", all, true, "entire/abc1234-e3b0c4, entire/checkpoints/v1"},
		{"--all to origin: shadow refused", "origin", all, true, "entire/abc1234-e3b0c4"},
		{"metadata to origin", "origin", line("entire/checkpoints/v1") + line("entire/notes/v1"), true, ""},
		{"origin by URL", "https://example.com/me/repo", line("entire/checkpoints/v1"), true, ""},
		{"push_sessions false", "origin", line("entire/checkpoints/v1"), false, "entire/checkpoints/v1"},
		{"deletion allowed", "fork", "(delete) " + zeroSHA + " refs/heads/entire/checkpoints/v1 " + sha + "\n", true, ""},
	}
	for _, tt := range tests {
		err := Guard(repo, strings.NewReader(tt.refs), Options{Remote: tt.remote, PushSessions: tt.push})
		if tt.refused == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not pushing "+tt.refused+" to") {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
