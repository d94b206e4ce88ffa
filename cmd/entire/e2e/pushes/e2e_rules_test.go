package pushes

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// A pattern added after a turn was recorded applies when the data leaves:
// the condensed checkpoint holds it redacted, and only the chunks that
// held it were rewritten.
func TestPatternAddedAfterCaptureAppliesAtCondensation(t *testing.T) {
	t.Parallel()
	const secret = "acme-launch-code-zebra-orchid"
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Deploy with "+secret, map[string]string{"a.txt": "a\n"})
	shadow := e2etest.ShadowBranches(t, r.Dir)[0]
	if !strings.Contains(gittest.Git(t, r.Dir, "show", shadow+":.entire/metadata/sess-1/full.jsonl"), secret) {
		t.Fatal("setup: no built-in rule should know the secret")
	}
	e2etest.AddRedactionPattern(t, r.Dir, `acme-launch-code-[a-z]+-[a-z]+`)
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	for _, f := range []string{"0/full.jsonl", "0/prompt.txt", "0/context.md"} {
		if got := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, f)); strings.Contains(got, secret) {
			t.Errorf("%s holds the secret after condensation", f)
		}
	}
	if !strings.Contains(gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl")), "REDACTED") {
		t.Error("the transcript was not redacted")
	}
}

// The pre-push hook scans what it would send with the rules in force: a
// secret stored before its pattern existed keeps the session data home
// (one line names doctor), the user's push goes on, and a push that names
// the metadata branch is refused.
func TestPrePushScansOutgoingData(t *testing.T) {
	t.Parallel()
	for _, layout := range []string{settings.CheckpointsGitBranch, settings.CheckpointsGitRefs} {
		t.Run(layout, func(t *testing.T) {
			t.Parallel()
			prePushScansOutgoingData(t, layout)
		})
	}
}

func prePushScansOutgoingData(t *testing.T, layout string) {
	const secret = "acme-launch-code-zebra-orchid"
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	r := e2etest.NewSessionRepo(t)
	r.UseLayout(layout)
	r.MustGit("remote", "add", "origin", remote)
	r.PlayTurn("Deploy with "+secret, map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	e2etest.AddRedactionPattern(t, r.Dir, `acme-launch-code-[a-z]+-[a-z]+`)

	out, err := r.GitIn(r.Dir, nil, "push", "origin", "main")
	if err != nil {
		t.Fatalf("the user's push failed: %v\n%s", err, out)
	}
	if !strings.Contains(out, "entire doctor --secrets") || strings.Count(out, "[entire]") != 1 {
		t.Errorf("push output does not name doctor in one line:\n%s", out)
	}
	stored := func() string {
		return gittest.Git(t, remote, "for-each-ref", "--format=%(refname)", "refs/heads/entire/", "refs/entire/")
	}
	if got := stored(); got != "" {
		t.Errorf("session data was pushed: %s", got)
	}
	if gittest.Git(t, remote, "rev-parse", "main") != gittest.Git(t, r.Dir, "rev-parse", "main") {
		t.Error("the user's branch was not pushed")
	}
	explicit := "entire/checkpoints/v1"
	if layout == settings.CheckpointsGitRefs {
		explicit = e2etest.CpRef(id) + ":" + e2etest.CpRef(id)
	}
	if out, err := r.GitIn(r.Dir, nil, "push", "origin", explicit); err == nil || !strings.Contains(out, "refused") {
		t.Errorf("an explicit push of the checkpoint data was not refused: %v\n%s", err, out)
	}
	if got := stored(); got != "" {
		t.Errorf("session data was pushed: %s", got)
	}
}
