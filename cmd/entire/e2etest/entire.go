package e2etest

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Entire runs the built binary in the session repository.
func (r *SessionRepo) Entire(args ...string) (stdout, stderr string, code int) {
	r.T.Helper()
	return RunEntire(r.T, r.Dir, r.Env, "", args...)
}

// MustEntire is entire that fails the test on a non-zero exit and returns
// stdout.
func (r *SessionRepo) MustEntire(args ...string) string {
	r.T.Helper()
	out, errOut, code := r.Entire(args...)
	if code != 0 {
		r.T.Fatalf("entire %s: exit %d: %s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// RunEntireWithin is RunEntire bounded in time: a hook that hangs is
// killed and reported.
func RunEntireWithin(t *testing.T, limit time.Duration, dir string, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, EntireBin(), args...)
	cmd.Dir = dir
	cmd.Env = append(gittest.Env(t.TempDir()), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("entire %v did not end within %s", args, limit)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// LineReader hands out one line per Read, as a terminal does (huh's
// accessible prompts start a new scanner for every question).
type LineReader struct{ Lines []string }

// RunEntire runs entire in dir with extra environment and stdin, the way
// an agent or git would, and returns its output and exit status.
func RunEntire(t *testing.T, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(EntireBin(), args...)
	cmd.Dir = dir
	cmd.Env = append(append(gittest.Env(t.TempDir()), ProgramEnv(t)...), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if len(args) == 3 && args[0] == "hooks" && (args[2] == "stop" || args[2] == "after-agent") && IsRepo(dir) {
		// The turn's step is written by a process of its own after the
		// hook returned; what the tests look at next needs it, as every
		// command that reads steps waits for it.
		AwaitFinishers(t, dir)
	}
	return o.String(), e.String(), code
}
