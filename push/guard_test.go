package push

import (
	"context"
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
	sha := gittest.Git(t, dir, "rev-parse", "HEAD")
	line := func(b string) string {
		return "refs/heads/" + b + " " + sha + " refs/heads/" + b + " " + zeroSHA + "\n"
	}
	ref := func(r string) string { return r + " " + sha + " " + r + " " + zeroSHA + "\n" }
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
		{"refs/entire to origin", "origin", ref("refs/entire/undo/20260101T000000.000000000Z"), true, "refs/entire/undo/20260101T000000.000000000Z"},
		{"refs/entire under another name", "origin", "refs/entire/undo/x " + sha + " refs/heads/x " + zeroSHA + "\n", true, "refs/entire/undo/x"},
		{"into refs/entire", "fork", "refs/heads/main " + sha + " refs/entire/main " + zeroSHA + "\n", true, "refs/entire/main"},
		{"--mirror to origin", "origin", line("main") + line("entire/checkpoints/v1") + ref("refs/entire/undo/y"), true, "refs/entire/undo/y"},
		{"deleting refs/entire allowed", "origin", "(delete) " + zeroSHA + " refs/entire/undo/y " + sha + "\n", true, ""},
	}
	for _, tt := range tests {
		err := Guard(context.Background(), repo, strings.NewReader(tt.refs), Options{Remote: tt.remote, PushSessions: tt.push})
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

// A push is judged by the commits it carries: a tag, a branch or a raw SHA
// whose history reaches entire's branches is refused where those branches
// may not go.
func TestGuardReachability(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.Git(t, dir, "remote", "add", "origin", "https://example.com/me/repo.git")
	gittest.Git(t, dir, "remote", "add", "fork", "https://example.com/other/repo.git")
	repo := openRepo(t, dir)
	tree := gittest.Git(t, dir, "rev-parse", "HEAD^{tree}")
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	// Orphan histories, as entire writes them.
	meta0 := gittest.Git(t, dir, "commit-tree", tree, "-m", "Initialize metadata branch")
	meta1 := gittest.Git(t, dir, "commit-tree", tree, "-p", meta0, "-m", "Checkpoint: 0123456789ab")
	gittest.Git(t, dir, "update-ref", "refs/heads/entire/checkpoints/v1", meta1)
	shadow := gittest.Git(t, dir, "commit-tree", tree, "-m", "step")
	gittest.Git(t, dir, "update-ref", "refs/heads/entire/abc1234-e3b0c4", shadow)
	// User history reaching them.
	reachMeta := gittest.Git(t, dir, "commit-tree", tree, "-p", head, "-p", meta0, "-m", "merge the metadata branch's root")
	reachShadow := gittest.Git(t, dir, "commit-tree", tree, "-p", head, "-p", shadow, "-m", "merge a shadow branch")
	user := gittest.Git(t, dir, "commit-tree", tree, "-p", head, "-m", "user work")
	gittest.Git(t, dir, "tag", "-a", "-m", "leak", "leak", reachMeta)
	tagObj := gittest.Git(t, dir, "rev-parse", "refs/tags/leak")
	// The checkpoint remote has the metadata branch, as entire's branch.
	gittest.Git(t, dir, "update-ref", "refs/remotes/origin/entire/checkpoints/v1", meta1)

	line := func(local, sha, remote, remoteSHA string) string {
		return local + " " + sha + " " + remote + " " + remoteSHA + "\n"
	}
	tests := []struct {
		name, remote, refs, refused string
	}{
		{"user tag to fork", "fork", line("refs/tags/ok", user, "refs/tags/ok", zeroSHA), ""},
		{"annotated tag reaching metadata to fork", "fork", line("refs/tags/leak", tagObj, "refs/tags/leak", zeroSHA), "refs/tags/leak"},
		{"raw SHA reaching metadata to fork", "fork", line(reachMeta, reachMeta, "refs/heads/x", zeroSHA), "refs/heads/x"},
		{"branch reaching metadata to fork", "fork", line("refs/heads/main", user, "refs/heads/main", zeroSHA) + line("refs/heads/side", reachMeta, "refs/heads/side", zeroSHA), "refs/heads/side"},
		{"metadata commit itself to fork", "fork", line(meta1, meta1, "refs/heads/backup", zeroSHA), "refs/heads/backup"},
		{"reaching metadata to origin", "origin", line("refs/tags/leak", tagObj, "refs/tags/leak", zeroSHA), "refs/tags/leak"},
		{"mirror of a remote-tracking metadata ref to origin", "origin", line("refs/remotes/origin/entire/checkpoints/v1", meta1, "refs/remotes/origin/entire/checkpoints/v1", zeroSHA), "refs/remotes/origin/entire/checkpoints/v1"},
		{"metadata commit under another name to origin", "origin", line(meta0, meta0, "refs/heads/backup", zeroSHA), "refs/heads/backup"},
		{"user branch to origin", "origin", line("refs/heads/main", user, "refs/heads/main", head), ""},
		{"reaching a shadow branch to origin", "origin", line(reachShadow, reachShadow, "refs/heads/x", zeroSHA), "refs/heads/x"},
		{"the fork already has it", "fork", line("refs/heads/side", reachMeta, "refs/heads/side", reachMeta), ""},
	}
	for _, tt := range tests {
		err := Guard(context.Background(), repo, strings.NewReader(tt.refs), Options{Remote: tt.remote, PushSessions: true})
		if tt.refused == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not pushing "+tt.refused+" (its history") {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	// A user branch under entire/ is no orphan history: pushing main is
	// not refused for it.
	gittest.Git(t, dir, "update-ref", "refs/heads/entire/feature", user)
	if err := Guard(context.Background(), repo, strings.NewReader(line("refs/heads/main", user, "refs/heads/main", zeroSHA)), Options{Remote: "fork", PushSessions: true}); err != nil {
		t.Errorf("main with a user branch entire/feature: %v", err)
	}
	// Metadata commits the fork's remote-tracking refs show it has are not
	// new to it.
	gittest.Git(t, dir, "update-ref", "refs/remotes/fork/side", reachMeta)
	err := Guard(context.Background(), repo, strings.NewReader(line("refs/tags/leak", tagObj, "refs/tags/leak", zeroSHA)), Options{Remote: "fork", PushSessions: true})
	if err != nil {
		t.Errorf("history the fork has: %v", err)
	}
}
