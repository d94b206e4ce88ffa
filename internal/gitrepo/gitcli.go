package gitrepo

import (
	"context"
	"fmt"
	"strings"
)

// GitError is a failed git command, with its exit code and what it printed
// on stderr.
type GitError struct {
	Args     []string
	ExitCode int
	Stderr   string
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.ExitCode)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// RunGit runs the git binary in the work-tree root and returns its standard
// output (r.Runner().Run): GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE
// inherited from a git hook are made absolute first, so a temporary index
// of `git commit <paths>` is honoured. The context, and DefaultTimeout,
// bound the command's run time.
func (r *Repo) RunGit(ctx context.Context, args ...string) ([]byte, error) {
	return r.Runner().Run(ctx, args...)
}

// RunGitInput is RunGit with stdin.
func (r *Repo) RunGitInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.Runner().RunInput(ctx, stdin, args...)
}
