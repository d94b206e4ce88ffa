//go:build torture

package pushes

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// (a) A checkpoint repository of its own: after a session, a commit and
// `git push origin main`, the checkpoint repository has the session data
// and origin has no entire/ ref and no transcript object; status says
// where data goes and from which setting.
func TestCheckpointRepositoryOfItsOwn(t *testing.T) {
	t.Parallel()
	f := newForgeRepo(t, "https://github.com/acme/app.git")
	f.setOptions(".entire/settings.json", `{"checkpoint_remote": {"provider": "github", "repo": "acme/app-checkpoints"}}`)
	st := f.statusJSON()
	if st.Kind != "repository" || st.Destination != "github:acme/app-checkpoints" || st.URL != "https://github.com/acme/app-checkpoints.git" ||
		st.Source != "strategy_options.checkpoint_remote in .entire/settings.json" {
		t.Fatalf("status before the push: %+v", st)
	}
	id, blob := f.sessionAndCommit()
	if st := f.statusJSON(); st.Unpushed != 1 || st.UnpushedIDs[0] != id {
		t.Fatalf("status: %+v, want 1 unpushed (%s)", st, id)
	}
	out := f.push("origin", "main")
	if !strings.Contains(out, "Pushing session logs to github:acme/app-checkpoints") {
		t.Errorf("push output:\n%s", out)
	}
	if refs := f.refs("acme/app"); refs != "refs/heads/main" {
		t.Errorf("origin refs:\n%s", refs)
	}
	if _, err := e2etest.GitCmd(t, f.SessionRepo, "-C", f.bare("acme/app"), "cat-file", "-e", blob).CombinedOutput(); err == nil {
		t.Error("origin has the transcript object")
	}
	if refs := f.refs("acme/app-checkpoints"); !strings.Contains(refs, "refs/heads/entire/checkpoints/v1") || strings.Contains(refs, "refs/heads/main") {
		t.Errorf("checkpoint repository refs:\n%s", refs)
	}
	if got := gittest.Git(t, f.bare("acme/app-checkpoints"), "rev-parse", e2etest.CpPath(id, "0/full.jsonl")); got != blob {
		t.Errorf("checkpoint repository's transcript %s, want %s", got, blob)
	}
	if st := f.statusJSON(); st.Unpushed != 0 || !st.Pushed {
		t.Errorf("status after the push: %+v", st)
	}
	// A fresh clone reads the checkpoint from the same repository.
	clone := t.TempDir()
	gittest.Git(t, clone, "-c", "url."+f.forge+"/.insteadOf=https://github.com/", "clone", "-q", "https://github.com/acme/app.git", "c")
	cdir := filepath.Join(clone, "c")
	gittest.Git(t, cdir, "config", "url."+f.forge+"/.insteadOf", "https://github.com/")
	if _, errOut, code := e2etest.RunEntire(t, cdir, f.Env, "", "resume", "main", "--force"); code != 0 || !strings.Contains(errOut, "Fetching session metadata from github:acme/app-checkpoints") {
		t.Errorf("resume in a clone: exit %d\n%s", code, errOut)
	}
	if got := gittest.Git(t, cdir, "rev-parse", e2etest.CpPath(id, "0/full.jsonl")); got != blob {
		t.Errorf("clone's checkpoint transcript %s, want %s", got, blob)
	}
}

// `git rebase` during a session: the commits git replays are not
// condensed again, and the next turn moves the shadow branch onto the new
// HEAD so the session's work is still linked at the next commit.
func TestE2ERebaseDuringSession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	base := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	gittest.Git(t, r.Dir, "branch", "upstream", base)

	r.PlayTurn("Write a", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	id1 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id1 == "" {
		t.Fatal("first commit not linked")
	}
	r.PlayTurn("Write b", map[string]string{"b.txt": "b\n"})
	oldShadow := e2etest.ShadowBranches(t, r.Dir)

	// Upstream moved on; the user rebases with the agent's work uncommitted.
	gittest.Git(t, r.Dir, "checkout", "-q", "upstream")
	gittest.WriteFile(t, r.Dir, "upstream.txt", "up\n")
	gittest.Git(t, r.Dir, "add", "upstream.txt")
	gittest.Git(t, r.Dir, "commit", "-q", "-m", "Upstream work")
	gittest.Git(t, r.Dir, "checkout", "-q", "main")
	cps := gittest.Git(t, r.Dir, "rev-list", "--count", "entire/checkpoints/v1")
	r.MustGit("rebase", "-q", "--autostash", "upstream")
	if got := e2etest.CheckpointAt(t, r.Dir, "HEAD"); got != id1 {
		t.Errorf("rebased commit trailer %q, want %s", got, id1)
	}
	if n := gittest.Git(t, r.Dir, "rev-list", "--count", "entire/checkpoints/v1"); n != cps {
		t.Errorf("the rebase wrote to the metadata branch (%s -> %s commits)", cps, n)
	}

	r.PlayTurn("Write c", map[string]string{"c.txt": "c\n"})
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	shadows := e2etest.ShadowBranches(t, r.Dir)
	if len(shadows) != 1 || !strings.HasPrefix(shadows[0], "entire/"+head[:7]+"-") || slices.Equal(shadows, oldShadow) {
		t.Fatalf("shadow branches after rebase %v (before %v, HEAD %s)", shadows, oldShadow, head[:7])
	}
	if st := e2etest.SessionState(t, r.Dir, "sess-1"); st["base_commit"] != head {
		t.Errorf("base_commit %v, want %s", st["base_commit"], head)
	}

	r.MustGit("add", "b.txt", "c.txt")
	r.MustGit("commit", "-q", "-m", "Add b and c")
	id2 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id2 == "" {
		t.Fatal("commit after rebase not linked")
	}
	m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id2, "0/metadata.json"))
	if ft := e2etest.AnyStrings(m["files_touched"]); !slices.Equal(ft, []string{"b.txt", "c.txt"}) || m["checkpoints_count"] != float64(2) {
		t.Errorf("checkpoint after rebase: files %v count %v", ft, m["checkpoints_count"])
	}
	// Every prompt of the session so far (SPEC 5.2.5).
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id2, "0/prompt.txt")); p != "Write a\n\n---\n\nWrite b\n\n---\n\nWrite c" {
		t.Errorf("prompt.txt %q", p)
	}
	e2etest.AssertStoreClean(t, r.Dir, id1, id2)
}

// A rebase stops on a conflict and the agent resolves it in a turn while
// the rebase is in progress (detached HEAD): `git rebase --continue` keeps
// the replayed commit's trailer without condensing, and the resolution
// turn is linked by the next commit; no shadow branch is left.
func TestE2ERebaseConflictResolvedByAgent(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	gittest.Git(t, r.Dir, "branch", "upstream", "HEAD")
	gittest.Git(t, r.Dir, "checkout", "-q", "upstream")
	gittest.WriteFile(t, r.Dir, "conf.txt", "upstream\n")
	gittest.Git(t, r.Dir, "add", "conf.txt")
	gittest.Git(t, r.Dir, "commit", "-q", "-m", "Upstream")
	gittest.Git(t, r.Dir, "checkout", "-q", "main")

	r.PlayTurn("Write conf", map[string]string{"conf.txt": "mine\n"})
	r.MustGit("add", "conf.txt")
	r.MustGit("commit", "-q", "-m", "Mine")
	id1 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id1 == "" {
		t.Fatal("first commit not linked")
	}
	if out, err := r.GitIn(r.Dir, nil, "rebase", "upstream"); err == nil || !strings.Contains(out, "CONFLICT") {
		t.Fatalf("rebase did not stop on the conflict: %v\n%s", err, out)
	}
	cps := gittest.Git(t, r.Dir, "rev-list", "--count", "entire/checkpoints/v1")
	r.StartTurn(r.Dir, "Resolve the conflict")
	r.WriteFiles(map[string]string{"conf.txt": "merged\n", "extra.txt": "x\n"})
	r.EndTurn(r.Dir, "Resolved")
	r.MustGit("add", "conf.txt")
	if out, err := r.GitIn(r.Dir, []string{"GIT_EDITOR=true"}, "rebase", "--continue"); err != nil {
		t.Fatal(err, out)
	}
	if got := e2etest.CheckpointAt(t, r.Dir, "HEAD"); got != id1 {
		t.Errorf("replayed commit trailer %q, want %s", got, id1)
	}
	if n := gittest.Git(t, r.Dir, "rev-list", "--count", "entire/checkpoints/v1"); n != cps {
		t.Errorf("the rebase wrote to the metadata branch (%s -> %s commits)", cps, n)
	}
	r.MustGit("add", "extra.txt")
	r.MustGit("commit", "-q", "-m", "Extra")
	id2 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id2 == "" || id2 == id1 {
		t.Fatalf("commit after the rebase: checkpoint %q", id2)
	}
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id2, "0/prompt.txt")); p != "Write conf\n\n---\n\nResolve the conflict" {
		t.Errorf("prompt.txt %q", p)
	}
	if left := e2etest.ShadowBranches(t, r.Dir); len(left) != 0 {
		t.Errorf("shadow branches left: %v", left)
	}
	e2etest.AssertStoreClean(t, r.Dir, id1, id2)
}
