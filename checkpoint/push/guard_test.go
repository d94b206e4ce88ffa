package push

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
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
		{"remote-tracking shadow branch", "origin", ref("refs/remotes/origin/entire/abc1234-e3b0c4"), true, "refs/remotes/origin/entire/abc1234-e3b0c4"},
		{"remote-tracking shadow branch of a remote named team/entire", "origin", ref("refs/remotes/team/entire/entire/abc1234-e3b0c4"), true, "refs/remotes/team/entire/entire/abc1234-e3b0c4"},
		{"--mirror to origin, remote-tracking metadata", "origin", line("main") + ref("refs/remotes/origin/entire/checkpoints/v1"), true, ""},
		{"checkpoint ref to origin", "origin", ref("refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D") + ref("refs/entire/checkpoints/f7/a3b2c4d5e6f7"), true, ""},
		{"checkpoint ref to a fork", "fork", ref("refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D"), true, "refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D"},
		{"checkpoint ref, push_sessions false", "origin", ref("refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D"), false, "refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D"},
		{"checkpoint ref in the wrong shard", "origin", ref("refs/entire/checkpoints/01/01K9TQ8ZP7X3F5M2WVJ4CNRB6D"), true, "refs/entire/checkpoints/01/01K9TQ8ZP7X3F5M2WVJ4CNRB6D"},
		{"checkpoint ref under another name", "origin", "refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D " + sha + " refs/heads/x " + zeroSHA + "\n", true, "refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D"},
		{"deleting a checkpoint ref", "origin", "(delete) " + zeroSHA + " refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D " + sha + "\n", true, "refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D (deleting a checkpoint on the remote; push with --no-verify if that is what you mean)"},
		{"deleting the purge record", "origin", "(delete) " + zeroSHA + " refs/entire/purges " + sha + "\n", true, "refs/entire/purges (deleting a checkpoint on the remote; push with --no-verify if that is what you mean)"},
		{"undo points beside checkpoint refs", "origin", ref("refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D") + ref("refs/entire/undo/z"), true, "refs/entire/undo/z"},
	}
	for _, tt := range tests {
		err := Guard(context.Background(), repo, strings.NewReader(tt.refs), Options{Destination: origin, Remote: tt.remote, PushSessions: tt.push})
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
// may not go; the checkpoint remote may receive it, but never a shadow
// branch's history.
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
	// A checkpoint ref (SPEC 10.3), and user history reaching it.
	cpRoot := gittest.Git(t, dir, "commit-tree", tree, "-m", "Checkpoint: 01K9TQ8ZP7X3F5M2WVJ4CNRB6D")
	cpNext := gittest.Git(t, dir, "commit-tree", tree, "-p", cpRoot, "-m", "Finalize transcript for Checkpoint: 01K9TQ8ZP7X3F5M2WVJ4CNRB6D")
	gittest.Git(t, dir, "update-ref", "refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D", cpNext)
	reachCp := gittest.Git(t, dir, "commit-tree", tree, "-p", head, "-p", cpNext, "-m", "merge a checkpoint ref")
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
		{"reaching metadata to origin", "origin", line("refs/tags/leak", tagObj, "refs/tags/leak", zeroSHA), ""},
		{"mirror of a remote-tracking metadata ref to origin", "origin", line("refs/remotes/origin/entire/checkpoints/v1", meta1, "refs/remotes/origin/entire/checkpoints/v1", zeroSHA), ""},
		{"mirror of a remote-tracking metadata ref to a fork", "fork", line("refs/remotes/origin/entire/checkpoints/v1", meta1, "refs/remotes/origin/entire/checkpoints/v1", zeroSHA), "refs/remotes/origin/entire/checkpoints/v1"},
		{"metadata commit under another name to origin", "origin", line(meta0, meta0, "refs/heads/backup", zeroSHA), ""},
		{"user branch to origin", "origin", line("refs/heads/main", user, "refs/heads/main", head), ""},
		{"reaching a shadow branch to origin", "origin", line(reachShadow, reachShadow, "refs/heads/x", zeroSHA), "refs/heads/x"},
		{"the fork already has it", "fork", line("refs/heads/side", reachMeta, "refs/heads/side", reachMeta), ""},
		{"branch reaching a checkpoint ref to fork", "fork", line("refs/heads/side", reachCp, "refs/heads/side", zeroSHA), "refs/heads/side"},
		{"checkpoint commit under another name to fork", "fork", line(cpNext, cpNext, "refs/heads/backup", zeroSHA), "refs/heads/backup"},
		{"checkpoint commit under another name to origin", "origin", line(cpNext, cpNext, "refs/heads/backup", zeroSHA), ""},
	}
	for _, tt := range tests {
		err := Guard(context.Background(), repo, strings.NewReader(tt.refs), Options{Destination: origin, Remote: tt.remote, PushSessions: true})
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
	if err := Guard(context.Background(), repo, strings.NewReader(line("refs/heads/main", user, "refs/heads/main", zeroSHA)), Options{Destination: origin, Remote: "fork", PushSessions: true}); err != nil {
		t.Errorf("main with a user branch entire/feature: %v", err)
	}
	// Metadata commits the fork's remote-tracking refs show it has are not
	// new to it.
	gittest.Git(t, dir, "update-ref", "refs/remotes/fork/side", reachMeta)
	err := Guard(context.Background(), repo, strings.NewReader(line("refs/tags/leak", tagObj, "refs/tags/leak", zeroSHA)), Options{Destination: origin, Remote: "fork", PushSessions: true})
	if err != nil {
		t.Errorf("history the fork has: %v", err)
	}
	// A metadata history known only through a remote named "entire" is
	// entire's too.
	gittest.Git(t, dir, "remote", "add", "entire", "https://example.com/entire/repo.git")
	other := gittest.Git(t, dir, "commit-tree", tree, "-m", "Initialize metadata branch elsewhere")
	gittest.Git(t, dir, "update-ref", "refs/remotes/entire/entire/checkpoints/v1", other)
	reachOther := gittest.Git(t, dir, "commit-tree", tree, "-p", head, "-p", other, "-m", "merge the other metadata branch")
	err = Guard(context.Background(), repo, strings.NewReader(line("refs/heads/side", reachOther, "refs/heads/side", zeroSHA)), Options{Destination: origin, Remote: "fork", PushSessions: true})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not pushing refs/heads/side (its history") {
		t.Errorf("history of a remote named entire: %v", err)
	}
}

// History a recorded purge removed is refused under any name, to the
// checkpoint remote too; a forced update of entire's branch may replace
// only purged history; the refusal ends with the command that pushes the
// rest.
func TestGuardPurgedHistory(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.Git(t, dir, "remote", "add", "origin", "https://example.com/me/repo.git")
	repo := openRepo(t, dir)
	tree := gittest.Git(t, dir, "rev-parse", "HEAD^{tree}")
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	// The old history (its second commit purged) and the rewritten one,
	// which keeps the unchanged first commit, with the record of the purge
	// on top.
	old0 := gittest.Git(t, dir, "commit-tree", tree, "-m", "Initialize metadata branch")
	old1 := gittest.Git(t, dir, "commit-tree", tree, "-p", old0, "-m", "Checkpoint: old")
	new0 := gittest.Git(t, dir, "commit-tree", tree, "-p", old0, "-m", "Checkpoint: old (purged)")
	rec := &secretscan.Purges{Purges: []secretscan.PurgeRecord{{Branch: "entire/checkpoints/v1", OldTip: old1, NewTip: new0, Roots: []string{old1}, Rewritten: []string{old1}}}}
	new1, err := secretscan.WritePurges(repo, plumbing.NewHash(new0), rec, "Record purge", fixedNow())
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "update-ref", "refs/heads/entire/checkpoints/v1", new1.String())
	other := gittest.Git(t, dir, "commit-tree", tree, "-m", "someone else's checkpoint")

	line := func(local, sha, remote, remoteSHA string) string {
		return local + " " + sha + " " + remote + " " + remoteSHA + "\n"
	}
	main := line("refs/heads/main", head, "refs/heads/main", zeroSHA)
	tests := []struct {
		name, refs, refused string
	}{
		{"stale remote-tracking ref", main + line("refs/remotes/origin/entire/checkpoints/v1", old1, "refs/remotes/origin/entire/checkpoints/v1", zeroSHA), "refs/remotes/origin/entire/checkpoints/v1 (its history holds commits a purge removed)"},
		{"entire branch reaching purged history", line("refs/heads/entire/checkpoints/v1", old1, "refs/heads/entire/checkpoints/v1", zeroSHA), "entire/checkpoints/v1 (its history holds commits a purge removed)"},
		{"the purge's force push", line("refs/heads/entire/checkpoints/v1", new1.String(), "refs/heads/entire/checkpoints/v1", old1), ""},
		{"fast-forward", line("refs/heads/entire/checkpoints/v1", new1.String(), "refs/heads/entire/checkpoints/v1", new0), ""},
		{"forced over history this clone has", line("refs/heads/entire/checkpoints/v1", new1.String(), "refs/heads/entire/checkpoints/v1", other), "entire/checkpoints/v1 (forced"},
		{"the purge's force push over history this clone lacks", line("refs/heads/entire/checkpoints/v1", new1.String(), "refs/heads/entire/checkpoints/v1", strings.Repeat("1", 40)), ""},
		{"forced over history this clone lacks, not a purge", line("refs/heads/entire/checkpoints/v1", other, "refs/heads/entire/checkpoints/v1", strings.Repeat("1", 40)), "entire/checkpoints/v1 (forced"},
	}
	for _, tt := range tests {
		err := Guard(context.Background(), repo, strings.NewReader(tt.refs), Options{Destination: origin, Remote: "origin", PushSessions: true})
		if tt.refused == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not pushing "+tt.refused) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	// Once pushed (the remote-tracking ref is back), the purge's result
	// no longer replaces history it does not have; the stale copy a
	// mirror would carry is refused with it.
	gittest.Git(t, dir, "update-ref", "refs/remotes/origin/entire/checkpoints/v1", new1.String())
	mirror := line("refs/heads/entire/checkpoints/v1", new1.String(), "refs/heads/entire/checkpoints/v1", strings.Repeat("1", 40)) +
		line("refs/remotes/origin/entire/checkpoints/v1", new1.String(), "refs/remotes/origin/entire/checkpoints/v1", zeroSHA) + main
	err = Guard(context.Background(), repo, strings.NewReader(mirror), Options{Destination: origin, Remote: "origin", PushSessions: true})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "entire/checkpoints/v1 (forced") || !strings.Contains(err.Error(), "refs/remotes/origin/entire/checkpoints/v1 (the remote's branch has moved past it)") {
		t.Errorf("forced after the purge's push: %v", err)
	}
	// By URL, origin's tracking ref counts the same.
	err = Guard(context.Background(), repo, strings.NewReader(tests[5].refs), Options{Destination: origin, Remote: "https://example.com/me/repo", PushSessions: true})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "entire/checkpoints/v1 (forced") {
		t.Errorf("forced after the purge's push, by URL: %v", err)
	}
	gittest.Git(t, dir, "update-ref", "-d", "refs/remotes/origin/entire/checkpoints/v1")
	// Another remote's tracking ref says nothing about origin's branch.
	gittest.Git(t, dir, "remote", "add", "upstream", "https://example.com/upstream/repo.git")
	gittest.Git(t, dir, "update-ref", "refs/remotes/upstream/entire/checkpoints/v1", other)
	if err := Guard(context.Background(), repo, strings.NewReader(tests[5].refs), Options{Destination: origin, Remote: "origin", PushSessions: true}); err != nil {
		t.Errorf("the purge's force push with upstream's tracking ref: %v", err)
	}
	gittest.Git(t, dir, "update-ref", "-d", "refs/remotes/upstream/entire/checkpoints/v1")
	err = Guard(context.Background(), repo, strings.NewReader(tests[0].refs), Options{Destination: origin, Remote: "origin", PushSessions: true})
	if want := "To push the rest:\n  git push origin refs/heads/main:refs/heads/main"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("rest command: %v", err)
	}
}

// The command a refusal prints pushes the rest as the refused push would
// have: forced where it was, deletions included.
func TestRestCommand(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo := openRepo(t, dir)
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	two := gittest.Git(t, dir, "rev-parse", "HEAD")
	side := gittest.Git(t, dir, "commit-tree", "HEAD^{tree}", "-m", "side")
	rest := []pushedRef{
		{local: "refs/heads/main", localSHA: two, remote: "refs/heads/main", remoteSHA: head},
		{local: "refs/heads/side", localSHA: side, remote: "refs/heads/side", remoteSHA: two},
		{local: "refs/tags/v1", localSHA: two, remote: "refs/tags/v1", remoteSHA: head},
		{local: "(delete)", localSHA: zeroSHA, remote: "refs/heads/gone", remoteSHA: head},
		{local: side, localSHA: side, remote: "refs/heads/x", remoteSHA: zeroSHA},
	}
	got := restCommand(context.Background(), repo, "/tmp/my remote", rest)
	want := "git push '/tmp/my remote' refs/heads/main:refs/heads/main +refs/heads/side:refs/heads/side +refs/tags/v1:refs/tags/v1 :refs/heads/gone " + side + ":refs/heads/x"
	if got != want {
		t.Errorf("restCommand:\n got %s\nwant %s", got, want)
	}
	if _, err := exec.Command("sh", "-n", "-c", got).CombinedOutput(); err != nil {
		t.Errorf("not a valid shell command: %v", err)
	}
}
