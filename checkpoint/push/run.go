package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/proc"
)

// DefaultTimeout bounds one network call when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// waitDelay is how long a finished or killed git may keep its output pipes
// open through a child that escaped the kill (an ssh ControlPersist master)
// before they are closed under it.
const waitDelay = 500 * time.Millisecond

// ErrTimeout is wrapped by errors of network calls that ran out of time.
var ErrTimeout = errors.New("push: timed out")

// runner runs the git binary for network calls.
type runner struct {
	repo    *gitrepo.Repo
	timeout time.Duration
	env     []string
}

// run runs git with args in the work-tree root, bounded by r.timeout and
// ctx. On timeout or cancellation the whole process group is killed, so a
// stuck ssh or credential helper dies with git. stdin is /dev/null and
// terminal prompts are off. It returns standard output also on failure
// (push --porcelain reports rejections there with a non-zero exit).
func (r *runner) run(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.repo.Root
	cmd.Env = r.environ()
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	proc.Detach(cmd)
	cmd.WaitDelay = waitDelay
	start := time.Now()
	err := cmd.Run()
	if err == nil || (errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() && ctx.Err() == nil) {
		return stdout.Bytes(), nil
	}
	verb := gitVerb(args)
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && time.Since(start) >= r.timeout {
			return stdout.Bytes(), fmt.Errorf("%w: git %s got no answer within %s", ErrTimeout, verb, r.timeout)
		}
		return stdout.Bytes(), fmt.Errorf("git %s: %w", verb, ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// Args is the verb alone: warnings name the command, not every ref.
		return stdout.Bytes(), &gitrepo.GitError{Args: []string{verb}, ExitCode: ee.ExitCode(), Stderr: stderr.String()}
	}
	return stdout.Bytes(), fmt.Errorf("run git %s: %w", verb, err)
}

// gitVerb returns the git command of args, past the "-c key=value"
// options.
func gitVerb(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}

// environ is the process environment pointed at r.repo explicitly (a hook's
// relative GIT_DIR would not survive), with terminal prompts disabled and
// r.env appended.
func (r *runner) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_TERMINAL_PROMPT":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_DIR="+r.repo.GitDir, "GIT_WORK_TREE="+r.repo.Root, "GIT_TERMINAL_PROMPT=0")
	return append(env, r.env...)
}
