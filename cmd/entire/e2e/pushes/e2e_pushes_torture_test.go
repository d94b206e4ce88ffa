//go:build torture

package pushes

import (
	"path/filepath"
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
