//go:build torture

package torture

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// A purge sticks: the force push doctor prints replaces the remote's
// history (a teammate's checkpoints pushed meanwhile are kept, moved onto
// the purged history), and the teammate's next push moves its own new
// checkpoints onto the purged history instead of merging the old one back.
func TestPurgeSticksAcrossClones(t *testing.T) {
	t.Parallel()
	// A secret no built-in rule knows, so that it is stored; a pattern
	// added later finds it.
	const secret = "acme-launch-code-zebra-orchid"
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)

	a := e2etest.NewSessionRepo(t)
	a.MustGit("remote", "add", "origin", remote)
	a.PlayTurn("Deploy with "+secret, map[string]string{"a1.txt": "a1\n"})
	a.MustGit("add", "a1.txt")
	a.MustGit("commit", "-q", "-m", "A's first change")
	a.MustGit("push", "-q", "origin", "main")
	e2etest.AwaitBackground(t)
	if len(e2etest.ObjectsHolding(t, remote, secret, "--all")) == 0 {
		t.Fatal("setup: the secret did not reach the remote")
	}

	b := e2etest.CloneSessionRepo(t, remote, "sess-b")
	b.PlayTurn("Write b1", map[string]string{"b1.txt": "b1\n"})
	b.MustGit("add", "b1.txt")
	b.MustGit("commit", "-q", "-m", "B's first change")
	bFirst := e2etest.CheckpointAt(t, b.Dir, "HEAD")
	b.MustGit("push", "-q", "origin", "main")

	// A learns the secret's shape and purges what it has.
	s, err := settings.Load(a.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.StrategyOptions == nil {
		s.StrategyOptions = map[string]any{}
	}
	s.StrategyOptions["redaction"] = map[string]any{"patterns": []any{`acme-launch-code-[a-z]+-[a-z]+`}}
	if err := settings.Save(settings.ProjectPath(a.Dir), s); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e2etest.RunEntire(t, a.Dir, a.Env, "", "doctor", "--secrets", "--purge")
	if code != 0 {
		t.Fatalf("doctor --purge: %d %s%s", code, out, errOut)
	}
	var printed string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "git push ") {
			printed = strings.TrimSpace(l)
		}
	}
	if printed == "" {
		t.Fatalf("doctor printed no push command:\n%s", out)
	}
	// The command works as printed.
	cmd := exec.Command("sh", "-c", printed)
	cmd.Dir = a.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), a.Env...)
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", printed, err, o)
	}
	if len(e2etest.ObjectsHolding(t, remote, secret, "--all")) > 0 {
		t.Fatal("the secret is still on the remote after the purge's push")
	}

	// B has not heard of the purge and mirrors its clone: its
	// entire/checkpoints/v1 and its remote-tracking ref hold the old
	// history. The forced update of the branch is refused (the hook merges
	// it instead, onto the purged history, at B's next push), and so is
	// the stale remote-tracking ref. The printed command, run as printed,
	// pushes the rest.
	out, err = b.GitIn(b.Dir, nil, "push", "--mirror", "origin")
	if err == nil || !strings.Contains(out, "not pushing entire/checkpoints/v1 (forced") || !strings.Contains(out, "refs/remotes/origin/entire/checkpoints/v1 (the remote's branch has moved past it)") {
		t.Fatalf("B's git push --mirror: %v\n%s", err, out)
	}
	e2etest.RunPrintedPushes(t, b, out, err)
	if len(e2etest.ObjectsHolding(t, remote, secret, "--all")) > 0 {
		t.Fatal("the teammate's mirror brought the secret back")
	}

	// B has not heard of the purge: its next push must not bring the old
	// history back, and keeps its new checkpoint.
	b.PlayTurn("Write b2", map[string]string{"b2.txt": "b2\n"})
	b.MustGit("add", "b2.txt")
	b.MustGit("commit", "-q", "-m", "B's second change")
	bSecond := e2etest.CheckpointAt(t, b.Dir, "HEAD")
	if o, err := b.GitIn(b.Dir, nil, "push", "origin", "main"); err != nil {
		t.Fatalf("B's push: %v\n%s", err, o)
	}
	if len(e2etest.ObjectsHolding(t, remote, secret, "--all")) > 0 {
		t.Fatal("the teammate's push brought the secret back")
	}
	// The force push dropped B's first checkpoint from the remote; B's
	// push brought it back, with the second, onto the purged history.
	onRemote := gittest.Git(t, remote, "ls-tree", "-r", "--name-only", "entire/checkpoints/v1")
	for _, id := range []string{bFirst, bSecond} {
		if !strings.Contains(onRemote, id[:2]+"/"+id[2:]+"/") {
			t.Errorf("the teammate's checkpoint %s is not on the remote", id)
		}
	}
	if !strings.Contains(onRemote, "purges.json") {
		t.Error("the purge record is not on the remote")
	}
	// Locally, A keeps nothing of the old history reachable from a ref or
	// a reflog.
	cmd = exec.Command("sh", "-c", `git rev-list --objects --all --reflog | cut -d' ' -f1 | git cat-file --batch`)
	cmd.Dir = a.Dir
	cmd.Env = gittest.Env(t.TempDir())
	if o, err := cmd.Output(); err != nil || strings.Contains(string(o), secret) {
		t.Errorf("the purged secret is still reachable in A's clone (%v)", err)
	}
}

// The same in the git-refs layout: the purged checkpoint refs replace the
// remote's copies, with their record (refs/entire/purges); a teammate who
// had fetched the checkpoint before the purge cannot mirror its stale
// copy back (nor delete the refs it never fetched), and its own
// checkpoints and pushes go on.
func TestPurgeSticksAcrossClonesRefs(t *testing.T) {
	t.Parallel()
	const secret = "acme-launch-code-zebra-orchid"
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)

	a := e2etest.NewRefsSessionRepo(t)
	a.MustGit("remote", "add", "origin", remote)
	a.PlayTurn("Deploy with "+secret, map[string]string{"a1.txt": "a1\n"})
	a.MustGit("add", "a1.txt")
	a.MustGit("commit", "-q", "-m", "A's first change")
	aFirst := e2etest.CheckpointAt(t, a.Dir, "HEAD")
	a.MustGit("push", "-q", "origin", "main")
	e2etest.AwaitBackground(t)
	if len(e2etest.ObjectsHolding(t, remote, secret, "--all")) == 0 || !e2etest.HasCheckpoint(t, remote, aFirst) {
		t.Fatal("setup: the checkpoint with the secret did not reach the remote")
	}

	b := e2etest.CloneSessionRepo(t, remote, "sess-b")
	if out := b.MustEntire("explain", "--commit", "HEAD"); !strings.Contains(out, "Deploy with") {
		t.Fatalf("B's explain of A's commit:\n%s", out)
	}
	if !e2etest.HasCheckpoint(t, b.Dir, aFirst) {
		t.Fatal("explain did not fetch A's checkpoint")
	}
	b.PlayTurn("Write b1", map[string]string{"b1.txt": "b1\n"})
	b.MustGit("add", "b1.txt")
	b.MustGit("commit", "-q", "-m", "B's first change")
	bFirst := e2etest.CheckpointAt(t, b.Dir, "HEAD")
	b.MustGit("push", "-q", "origin", "main")
	e2etest.AwaitBackground(t)

	e2etest.AddRedactionPattern(t, a.Dir, `acme-launch-code-[a-z]+-[a-z]+`)
	out, errOut, code := e2etest.RunEntire(t, a.Dir, a.Env, "", "doctor", "--secrets", "--purge")
	if code != 0 || !strings.Contains(out, "Rewrote "+e2etest.CpRef(aFirst)) {
		t.Fatalf("doctor --purge: %d %s%s", code, out, errOut)
	}
	printed := e2etest.PrintedPush(t, out)
	cmd := exec.Command("sh", "-c", printed)
	cmd.Dir = a.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), a.Env...)
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", printed, err, o)
	}
	if len(e2etest.ObjectsHolding(t, remote, secret, "--all")) > 0 {
		t.Fatal("the secret is still on the remote after the purge's push")
	}

	// B mirrors its clone: its copy of A's checkpoint is the old one.
	out, err := b.GitIn(b.Dir, nil, "push", "--mirror", "origin")
	if err == nil || !strings.Contains(out, "not pushing "+e2etest.CpRef(aFirst)) {
		t.Fatalf("B's git push --mirror: %v\n%s", err, out)
	}
	e2etest.RunPrintedPushes(t, b, out, err)
	if len(e2etest.ObjectsHolding(t, remote, secret, "--all")) > 0 {
		t.Fatal("the teammate's mirror brought the secret back")
	}
	for _, id := range []string{aFirst, bFirst} {
		if !e2etest.HasCheckpoint(t, remote, id) {
			t.Errorf("checkpoint %s is not on the remote", id)
		}
	}
	if got := gittest.Git(t, remote, "show", "refs/entire/purges:purges.json"); !strings.Contains(got, aFirst) {
		t.Errorf("the remote's purge record:\n%s", got)
	}

	// B goes on working: a new checkpoint lands.
	b.PlayTurn("Write b2", map[string]string{"b2.txt": "b2\n"})
	b.MustGit("add", "b2.txt")
	b.MustGit("commit", "-q", "-m", "B's second change")
	bSecond := e2etest.CheckpointAt(t, b.Dir, "HEAD")
	if o, err := b.GitIn(b.Dir, nil, "push", "origin", "main"); err != nil {
		t.Fatalf("B's push: %v\n%s", err, o)
	}
	e2etest.AwaitBackground(t)
	if !e2etest.HasCheckpoint(t, remote, bSecond) || len(e2etest.ObjectsHolding(t, remote, secret, "--all")) > 0 {
		t.Error("B's next push: its checkpoint is missing, or the secret is back")
	}
}
