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

// RunEntireWithin is runEntire bounded in time: a hook that hangs is
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
