package pushes

import (
	"context"
	"math/rand"
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
