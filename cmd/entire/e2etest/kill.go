package e2etest

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// KilledHook runs a Claude Code hook and SIGKILLs it (with any process it
// detached) after a random delay of up to 60 ms.
func (r *SessionRepo) KilledHook(rng *rand.Rand, verb string, payload map[string]any) {
	r.T.Helper()
	setDefault(payload, "session_id", r.SessionID)
	setDefault(payload, "transcript_path", r.Transcript)
	setDefault(payload, "cwd", r.Dir)
	b, _ := json.Marshal(payload)
	cmd := exec.Command(EntireBin(), "hooks", "claude-code", verb)
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(r.T.TempDir()), r.Env...)
	cmd.Stdin = strings.NewReader(string(b))
	r.KillDuring(rng, cmd, 60*time.Millisecond)
}

// KillDuring runs cmd and, after a random delay below max, SIGKILLs every
// entire process working in the repository (cmd itself when it is entire,
// entire under a git command, a detached finisher). It returns cmd's
// combined output and error.
func (r *SessionRepo) KillDuring(rng *rand.Rand, cmd *exec.Cmd, max time.Duration) (string, error) {
	r.T.Helper()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		r.T.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.Int64N(int64(max))))
	defer cancel()
	select {
	case err := <-done:
		return out.String(), err
	case <-ctx.Done():
	}
	killEntireIn(r.Dir)
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(30 * time.Second):
		r.T.Fatalf("%v still runs 30 s after entire was killed", cmd.Args)
		return "", nil
	}
}
