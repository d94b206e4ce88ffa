package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/proc"
)

// DefaultTimeout bounds a git command when Runner.Timeout is zero. It is
// far above any command's normal run: it only stops a git that hangs (on a
// lock, or a prompt nobody answers) from hanging entire with it.
const DefaultTimeout = 10 * time.Minute

// waitDelay is how long a finished or killed git may keep its output pipes
// open through a child that escaped it (an ssh ControlPersist master)
// before they are closed under it.
const waitDelay = 500 * time.Millisecond

// ErrTimeout is wrapped by the error of a command stopped by its Runner's
// Timeout (not by the caller's context).
var ErrTimeout = errors.New("git timed out")

// pathVars are git's environment variables that hold paths, which git
// resolves against its working directory.
var pathVars = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"}

// Runner runs the git binary; every package runs git through one. The
// zero value runs git in the current directory with the process
// environment, bounded by DefaultTimeout, in the caller's process group.
type Runner struct {
	// Dir is the directory git runs in; empty means the current one.
	Dir string
	// Env is the environment git starts from; nil means the process
	// environment with git's path variables (GIT_DIR, GIT_WORK_TREE,
	// GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_COMMON_DIR) made absolute
	// against the current directory: git runs hooks from the work-tree
	// root with those relative to it, and a temporary index of
	// `git commit <paths>` must be honoured wherever git then runs.
	Env []string
	// Unset names variables removed from Env.
	Unset []string
	// Set holds KEY=VALUE entries added last (a later entry wins).
	Set []string
	// CLocale sets LC_ALL=C, for commands whose output or messages are
	// parsed.
	CLocale bool
	// Timeout bounds each command; zero means DefaultTimeout (ReadBatch
	// then has no bound but its context), negative means none.
	Timeout time.Duration
	// Detach starts git in a new session, its own process group without a
	// terminal, and makes cancellation kill the whole group, so that an
	// ssh or credential helper dies with git. git can then not prompt, so
	// it is for commands that must never wait on a person (network calls
	// from hooks). Without it, cancellation kills git itself and its
	// output pipes are closed shortly after, even if a child holds them.
	Detach bool
	// ShortErrors makes errors name the git command (its verb) alone, not
	// every argument: for commands with long ref lists.
	ShortErrors bool
}

// Runner returns the runner of r's git commands: in the work-tree root,
// with the process environment normalised (see Runner.Env).
func (r *Repo) Runner() Runner {
	return Runner{Dir: r.Root}
}

// Run runs git with args and returns its standard output, also on failure.
// A non-zero exit is a *GitError; a command stopped by the runner's
// Timeout wraps ErrTimeout, one stopped by ctx wraps ctx's error.
func (g Runner) Run(ctx context.Context, args ...string) ([]byte, error) {
	return g.run(ctx, nil, args)
}

// RunInput is Run with stdin as git's standard input.
func (g Runner) RunInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return g.run(ctx, stdin, args)
}

func (g Runner) run(parent context.Context, stdin []byte, args []string) ([]byte, error) {
	ctx, cancel := g.bound(parent, DefaultTimeout)
	defer cancel()
	cmd := g.command(ctx, args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	return stdout.Bytes(), g.result(parent, ctx, cmd, args, err, stderr.String())
}

// bound returns ctx bounded by the runner's Timeout (def when zero).
func (g Runner) bound(ctx context.Context, def time.Duration) (context.Context, context.CancelFunc) {
	d := g.Timeout
	if d == 0 {
		d = def
	}
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// command builds the git command: directory, environment, stdin
// /dev/null, wait delay, and the process group when Detach.
func (g Runner) command(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Dir
	cmd.Env = g.environ()
	cmd.WaitDelay = waitDelay
	if g.Detach {
		proc.Detach(cmd)
	}
	return cmd
}

// result turns the outcome of a finished command into Run's error.
func (g Runner) result(parent, ctx context.Context, cmd *exec.Cmd, args []string, err error, stderr string) error {
	if err == nil {
		return nil
	}
	// Pipes held open by an escaped child past the wait delay, after a
	// successful run: the output is complete.
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() && ctx.Err() == nil {
		return nil
	}
	name := strings.Join(args, " ")
	if g.ShortErrors {
		name = Verb(args)
	}
	if ctx.Err() != nil {
		if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("git %s: %w", name, ErrTimeout)
		}
		return fmt.Errorf("git %s: %w", name, ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ge := &GitError{Args: args, ExitCode: ee.ExitCode(), Stderr: stderr}
		if g.ShortErrors {
			ge.Args = []string{name}
		}
		return ge
	}
	return fmt.Errorf("run git %s: %w", name, err)
}

// environ returns the environment git runs with (see Runner.Env).
func (g Runner) environ() []string {
	base := g.Env
	if base == nil {
		base = absPathVars(os.Environ())
	}
	env := make([]string, 0, len(base)+len(g.Set)+1)
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(g.Unset, k) {
			env = append(env, kv)
		}
	}
	if g.CLocale {
		env = append(env, "LC_ALL=C")
	}
	return append(env, g.Set...)
}

// absPathVars returns env with git's path variables made absolute against
// the current directory.
func absPathVars(env []string) []string {
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if v != "" && !filepath.IsAbs(v) && slices.Contains(pathVars, k) {
			if wd, err := os.Getwd(); err == nil {
				env[i] = k + "=" + filepath.Join(wd, v)
			}
		}
	}
	return env
}

// Verb returns the git command of args (as "push" of "-c k=v push
// origin"), past the "-c key=value" and "-C dir" options.
func Verb(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" || args[i] == "-C" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}

// RunLines is Run that hands git's standard output to line as it arrives,
// a line at a time without its newline (lines up to 64 MiB), instead of
// returning it: for commands whose output is worked on while git still
// runs (`git blame --incremental`). An error from line stops git and is
// returned.
func (g Runner) RunLines(ctx context.Context, line func([]byte) error, args ...string) error {
	bctx, cancel := g.bound(ctx, DefaultTimeout)
	defer cancel()
	cmd := g.command(bctx, args)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("run git %s: %w", Verb(args), err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run git %s: %w", Verb(args), err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var lerr error
	for sc.Scan() {
		if lerr = line(sc.Bytes()); lerr != nil {
			cancel()
			break
		}
	}
	if lerr == nil {
		lerr = sc.Err()
	}
	io.Copy(io.Discard, out)
	err = cmd.Wait()
	if lerr != nil {
		return lerr
	}
	return g.result(ctx, bctx, cmd, args, err, stderr.String())
}
