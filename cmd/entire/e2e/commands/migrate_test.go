package commands

import (
	"os"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// `entire doctor migrate-checkpoints` copies a v1 history into one ref per
// checkpoint with the IDs kept, and switches the settings: the commits'
// trailers still find their checkpoints, a second run copies nothing, a
// run after an interruption copies only what is missing, new checkpoints
// are ULID refs, and the v1 branch is not deleted.
func TestMigrateCheckpointsToRefs(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("write a", map[string]string{"a.txt": "a\n"})
	first, _ := r.Commit("add a", nil, "a.txt")
	r.AgentTurn("write b", map[string]string{"b.txt": "b\n"})
	second, _ := r.Commit("add b", nil, "b.txt")
	if len(first) != 12 || len(second) != 12 {
		t.Fatalf("v1 IDs: %q %q", first, second)
	}
	v1 := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")

	out := r.MustEntire("doctor", "migrate-checkpoints")
	if !strings.Contains(out, "Copied 2 checkpoint(s)") || !strings.Contains(out, "git-refs") {
		t.Errorf("first run:\n%s", out)
	}
	for _, id := range []string{first, second} {
		ref := "refs/entire/checkpoints/" + id[10:] + "/" + id
		meta := gittest.Git(t, r.Dir, "show", ref+":metadata.json")
		if !strings.Contains(meta, `"/0/metadata.json"`) || strings.Contains(meta, id[:2]+"/"+id[2:]) {
			t.Errorf("%s root metadata not rewritten to the ref's root:\n%s", id, meta)
		}
		if got := gittest.Git(t, r.Dir, "show", ref+":0/prompt.txt"); got == "" {
			t.Errorf("%s lost its prompt", id)
		}
	}
	if got := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1"); got != v1 {
		t.Errorf("the v1 branch moved: %s, was %s", got, v1)
	}
	s, err := settings.LoadFile(settings.ProjectPath(r.Dir))
	if err != nil {
		t.Fatal(err)
	}
	if typ, _ := s.CheckpointsType(); typ != settings.CheckpointsGitRefs {
		t.Errorf("layout after migration: %q", typ)
	}

	// Reading prefers the ref: with the v1 branch gone, explain still
	// tells the first commit's story.
	gittest.Git(t, r.Dir, "update-ref", "-d", "refs/heads/entire/checkpoints/v1")
	if out := r.MustEntire("explain", "--commit", "HEAD~1"); !strings.Contains(out, "write a") {
		t.Errorf("explain after the v1 branch was deleted:\n%s", out)
	}
	gittest.Git(t, r.Dir, "update-ref", "refs/heads/entire/checkpoints/v1", v1)

	if out := r.MustEntire("doctor", "migrate-checkpoints"); !strings.Contains(out, "Copied 0 checkpoint(s)") || !strings.Contains(out, "2 were there already") {
		t.Errorf("second run:\n%s", out)
	}
	// An interrupted run: one ref missing.
	gittest.Git(t, r.Dir, "update-ref", "-d", "refs/entire/checkpoints/"+second[10:]+"/"+second)
	if out := r.MustEntire("doctor", "migrate-checkpoints"); !strings.Contains(out, "Copied 1 checkpoint(s)") {
		t.Errorf("resumed run:\n%s", out)
	}

	// New checkpoints are ULID refs; nothing more lands on v1.
	gittest.Git(t, r.Dir, "commit", "-q", "--no-verify", "-m", "layout", "--", settings.ProjectRel)
	r.AgentTurn("write c", map[string]string{"c.txt": "c\n"})
	third, _ := r.Commit("add c", nil, "c.txt")
	if len(third) != 26 || !e2etest.HasCheckpoint(t, r.Dir, third) {
		t.Fatalf("checkpoint after the migration: %q", third)
	}
	if got := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1"); got != v1 {
		t.Errorf("a checkpoint after the migration went to the v1 branch")
	}
	if out := r.MustEntire("explain", "--commit", "HEAD"); !strings.Contains(out, "write c") {
		t.Errorf("explain of the new checkpoint:\n%s", out)
	}
	if _, err := os.Stat(e2etest.GitPath(t, r.Dir, "entire-checkpoint-queue/"+third)); err != nil {
		t.Errorf("the new checkpoint is not queued for the next push: %v", err)
	}
}
