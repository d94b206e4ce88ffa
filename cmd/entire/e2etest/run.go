package e2etest

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

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

// IsRepo reports whether dir is inside a git work tree.
func IsRepo(dir string) bool {
	_, err := gittest.GitErr(dir, "rev-parse", "--git-dir")
	return err == nil
}
