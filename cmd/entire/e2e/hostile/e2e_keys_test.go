//go:build torture

package hostile

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A key followed by punctuation, or inside a file name, never reaches the
// remote: not in the transcript chunks, not in files_touched of either
// metadata.json; and where an older version stored one, doctor --secrets
// and the pre-push scan find it.
func TestE2EKeysBeforePunctuationNeverLeave(t *testing.T) {
	t.Parallel()
	keys := e2etest.PunctuatedKeys(rand.New(rand.NewPCG(30, 1)))
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	r := e2etest.NewSessionRepo(t)
	r.MustGit("remote", "add", "origin", remote)
	r.Hook("session-start", map[string]any{"source": "startup"})
	var prompt strings.Builder
	for _, k := range keys {
		for _, c := range []string{".", ")", "/", ",", ":", "]", "}", ">"} {
			prompt.WriteString("use " + k + c + " then\n")
		}
	}
	files := map[string]string{"app.txt": "app\n"}
	for i, k := range keys {
		files[fmt.Sprintf("cfg%d/stripe=%s.cfg", i, k)] = "rotate me\n"
	}
	r.PlayTurn(prompt.String(), files)
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "config")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("the commit is not linked to a checkpoint")
	}
	r.MustGit("push", "-q", "origin", "main")
	e2etest.AwaitBackground(t)
	if got := gittest.Git(t, remote, "rev-parse", "entire/checkpoints/v1"); got != gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1") {
		t.Fatal("the session data did not reach the remote")
	}
	for _, k := range keys {
		// (The user's own commit holds the file names: that is theirs.)
		if found := e2etest.ObjectsHolding(t, remote, k, "--branches=entire/*"); len(found) > 0 {
			t.Errorf("the remote's session data holds %s... in %v", k[:8], found)
		}
		if found := e2etest.ObjectsHolding(t, r.Dir, k, "entire/checkpoints/v1"); len(found) > 0 {
			t.Errorf("the metadata branch holds %s... in %v", k[:8], found)
		}
	}
	for _, rel := range []string{"metadata.json", "0/metadata.json"} {
		if m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, rel)); !strings.Contains(fmt.Sprint(m["files_touched"]), "stripe=REDACTED.cfg") {
			t.Errorf("%s files_touched = %v", rel, m["files_touched"])
		}
	}

	// Stored unredacted, as an older version could have: the scans that
	// guard the data find what redaction would.
	old := e2etest.NewSessionRepo(t)
	old.MustGit("remote", "add", "origin", remote)
	repo, err := gitrepo.Open(old.Dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := checkpoint.AppendJSONL(repo, nil, []byte(`{"type":"user","message":{"content":"token (`+keys[1]+`). and `+keys[0]+`."}}`+"\n"))
	if _, err := checkpoint.NewStore(repo, nil).WriteSession(context.Background(), "b3b2c4d5e6f7", checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: "s1", Strategy: checkpoint.StrategyManualCommit, FilesTouched: []string{"conf/" + keys[2] + ".cfg"}}, Transcript: ts,
	}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e2etest.RunEntire(t, old.Dir, nil, "", "doctor", "--secrets")
	if code != 1 || !strings.Contains(out, "rule databricks-api-token") || !strings.Contains(out, "rule stripe-access-token") ||
		!strings.Contains(out, "0/metadata.json  rule digitalocean-pat") {
		t.Errorf("doctor --secrets: exit %d\n%s%s", code, out, errOut)
	}
	pushOut, err := old.GitIn(old.Dir, nil, "push", "origin", "main:other")
	if err != nil || !strings.Contains(string(pushOut), "secret(s) in data it does not have yet") {
		t.Errorf("push: %v\n%s", err, pushOut)
	}
}
