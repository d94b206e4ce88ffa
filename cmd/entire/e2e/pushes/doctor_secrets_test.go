package pushes

import (
	"context"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestDoctorSecrets(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(3))
	b := make([]byte, 36)
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789"[rnd.Intn(46)]
	}
	secret := "gh" + "p_" + string(b)
	// Data stored unredacted, as an older tool could have.
	ts, _ := checkpoint.AppendJSONL(repo, nil, []byte(`{"type":"user","message":{"content":"token `+secret+`"}}`+"\n"))
	if _, err := checkpoint.NewStore(repo, nil).WriteSession(context.Background(), "a3b2c4d5e6f7", checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: "s1", Strategy: checkpoint.StrategyManualCommit}, Transcript: ts,
	}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "doctor", "--secrets")
	if code != 1 || !strings.Contains(out, "checkpoint a3b2c4d5e6f7 a3/b2c4d5e6f7/0/full.jsonl  rule github-pat") ||
		!strings.Contains(out, "entire doctor --secrets --purge") {
		t.Fatalf("doctor --secrets: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, secret) {
		t.Fatal("doctor printed the secret")
	}
	if out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "doctor", "--secrets", "--purge"); code != 0 || !strings.Contains(out, "Rewrote entire/checkpoints/v1") {
		t.Fatalf("purge: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, code := e2etest.RunEntire(t, dir, nil, "", "doctor", "--secrets"); code != 0 || !strings.Contains(out, "No secrets found") {
		t.Fatalf("after purge: exit %d\n%s", code, out)
	}
	if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "doctor", "--purge"); code != 1 || !strings.Contains(errOut, "--purge requires --secrets") {
		t.Errorf("--purge alone: %d %s", code, errOut)
	}
	gittest.Fsck(t, dir)
}

// The same for a checkpoint stored as its own ref (SPEC 10.3): found,
// named by its ref, purged in place, and the push doctor prints replaces
// the remote's copy and carries the purge record.
func TestDoctorSecretsInCheckpointRefs(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	bare := t.TempDir()
	gittest.Git(t, bare, "init", "-q", "--bare")
	gittest.Git(t, dir, "remote", "add", "origin", bare)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	secret := "gh" + "p_" + "Zq8vN2kLm4Xw7Rt1Yb5Hc9Jd3Fg6Ps0Ua2Ei"
	ts, _ := checkpoint.AppendJSONL(repo, nil, []byte(`{"type":"user","message":{"content":"token `+secret+`"}}`+"\n"))
	id := checkpoint.ID("01K9TQ8ZP7X3F5M2WVJ4CNRB6D")
	if _, err := checkpoint.NewStore(repo, nil).WithLayout(checkpoint.LayoutRefs).WriteSession(context.Background(), id, checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: "s1", Strategy: checkpoint.StrategyManualCommit}, Transcript: ts,
	}, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	ref := string(id.RefName())
	gittest.Git(t, dir, "push", "-q", "origin", ref+":"+ref) // pushed before anyone looked
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "doctor", "--secrets")
	if code != 1 || !strings.Contains(out, ref+"  checkpoint "+string(id)+" 0/full.jsonl  rule github-pat") {
		t.Fatalf("doctor --secrets: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = e2etest.RunEntire(t, dir, nil, "", "doctor", "--secrets", "--purge")
	if code != 0 || !strings.Contains(out, "Rewrote "+ref) {
		t.Fatalf("purge: exit %d\n%s%s", code, out, errOut)
	}
	_, pushCmd, ok := strings.Cut(out, "rotate the credentials:\n")
	if !ok || !strings.Contains(pushCmd, "refs/entire/purges") {
		t.Fatalf("no push command with the purge record:\n%s", out)
	}
	cmd := exec.Command("sh", "-c", strings.TrimSpace(pushCmd))
	cmd.Dir = dir
	cmd.Env = gittest.Env(t.TempDir())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", pushCmd, err, b)
	}
	if got := gittest.Git(t, bare, "log", "-p", ref); strings.Contains(got, secret) {
		t.Error("the remote's checkpoint ref still holds the secret")
	}
	if got := gittest.Git(t, bare, "show", "refs/entire/purges:purges.json"); !strings.Contains(got, ref) {
		t.Errorf("the remote's purge record:\n%s", got)
	}
	if out, _, code := e2etest.RunEntire(t, dir, nil, "", "doctor", "--secrets"); code != 0 || !strings.Contains(out, "No secrets found") {
		t.Fatalf("after purge: exit %d\n%s", code, out)
	}
}
