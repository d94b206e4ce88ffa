package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
// output. GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE inherited from a git
// hook are made absolute first, so a temporary index of `git commit <paths>`
// is honoured. The context bounds the command's run time.
func (r *Repo) RunGit(ctx context.Context, args ...string) ([]byte, error) {
	return r.runGit(ctx, nil, args...)
}

// RunGitInput is RunGit with stdin.
func (r *Repo) RunGitInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.runGit(ctx, stdin, args...)
}

func (r *Repo) runGit(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.Root
	cmd.Env = r.gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stdout.Bytes(), &GitError{Args: args, ExitCode: ee.ExitCode(), Stderr: stderr.String()}
		}
		return nil, fmt.Errorf("run git %s: %w", strings.Join(args, " "), err)
	}
	return stdout.Bytes(), nil
}

// gitEnv is the process environment with git's path variables made
// absolute against the directory they were relative to (git runs hooks from
// the work-tree root, which is also where RunGit runs).
func (r *Repo) gitEnv() []string {
	env := os.Environ()
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR":
			if v != "" && !filepath.IsAbs(v) {
				if wd, err := os.Getwd(); err == nil {
					env[i] = k + "=" + filepath.Join(wd, v)
				}
			}
		}
	}
	return env
}
