package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/fswatch"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/proc"
	"github.com/entirecli/entire/strategy"
)

// The agent hooks' one git status runs on a private index with git's
// untracked cache and, while a watcher runs for the work tree, with
// `entire hooks fsmonitor` as git's fsmonitor hook (internal/fswatch). The
// watcher is started by the hooks of a session (`entire hooks watch`,
// detached) and exits on its own: idle, work tree removed, `entire
// disable`. It is used when the repository's index is large
// (watchIndexBytes); ENTIRE_FSMONITOR=0 turns all of it off (the plain
// status), ENTIRE_FSMONITOR=1 on whatever the size.

// watchIndexBytes is the size of the user's index from which the hooks use
// the watcher: about 10k files. Below it git's own scan costs less than
// the monitor's extra process (a small repository's hooks ran 8 ms slower
// with it), and no watcher process is kept for the repository.
const watchIndexBytes = 1 << 20

// largeIndex reports whether the repository's index is watchIndexBytes or
// more.
func largeIndex(repo *gitrepo.Repo) bool {
	fi, err := os.Stat(filepath.Join(repo.GitDir, "index"))
	return err == nil && fi.Size() >= watchIndexBytes
}

// maxWatcherLog is the size past which the watcher's log starts afresh.
const maxWatcherLog = 1 << 20

// useWatcher makes the repository's status fast (gitrepo.FastStatus) and,
// when start is set, starts the work tree's watcher if none runs. Problems
// are logged: the status then runs as it can (plain, or without the
// monitor).
func useWatcher(senv *strategy.Env, start bool) {
	force := ""
	if senv.Getenv != nil {
		force = senv.Getenv("ENTIRE_FSMONITOR")
	}
	if force == "0" {
		return
	}
	repo := senv.Repo
	if force != "1" && !largeIndex(repo) {
		return
	}
	if runtime.GOOS != "linux" {
		// fsnotify watches directories with inotify only on Linux; kqueue
		// would need a descriptor per file of the tree.
		return
	}
	stateDir := fswatch.StateDir(repo.GitDir)
	fs := &gitrepo.FastStatus{IndexFile: fswatch.IndexFile(stateDir)}
	repo.FastStatus = fs
	exe, err := os.Executable()
	if err != nil {
		senv.Log.Warn("file watcher: find the entire binary", "error", err)
		return
	}
	if fswatch.Running(stateDir) {
		fs.FSMonitor = shellQuote(exe) + " hooks fsmonitor " + shellQuote(stateDir)
		fs.Changes = func(token string) (string, []string, bool) { return fswatch.Changes(stateDir, token) }
		fs.CacheFile = fswatch.StatusCacheFile(stateDir)
		return
	}
	if !start {
		return
	}
	if err := startWatcher(exe, repo.Root, stateDir); err != nil {
		senv.Log.Warn("file watcher: start", "error", err)
	}
}

// startWatcher starts `<exe> hooks watch <root> <stateDir>` in a session
// of its own, its stderr appended to the state directory's log, and does
// not wait for it.
func startWatcher(exe, root, stateDir string) error {
	if err := fswatch.Prepare(stateDir); err != nil {
		return err
	}
	logPath := fswatch.LogFile(stateDir)
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > maxWatcherLog {
		flags |= os.O_TRUNC
	}
	logf, err := os.OpenFile(logPath, flags, 0o600)
	if err != nil {
		return fmt.Errorf("watcher log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(exe, "hooks", "watch", root, stateDir)
	cmd.Dir = "/"
	cmd.Stderr = logf
	proc.NewSession(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the file watcher: %w", err)
	}
	return cmd.Process.Release()
}

// shellQuote quotes s for sh: git runs core.fsmonitor through the shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RunFSMonitor handles `entire hooks fsmonitor <state-dir> <version>
// <token>`, which git runs as its fsmonitor hook during the hooks' status:
// it prints the watcher's answer (fswatch.Query). A version other than 2
// exits 1, which makes git check every path.
func RunFSMonitor(env Env, args []string) int {
	if len(args) != 3 || args[1] != "2" {
		env.warnf("entire hooks fsmonitor: want <state-dir> 2 <token>, got %q\n", args)
		return 1
	}
	if _, err := env.Stdout.Write(fswatch.Query(args[0], args[2])); err != nil {
		return 1
	}
	return 0
}

// RunWatch handles `entire hooks watch <root> <state-dir>`: the watcher
// (fswatch.Run), until it ends on its own. Its lines go to stderr, which
// the starting hook points at the watcher's log.
func RunWatch(ctx context.Context, env Env, args []string) int {
	if len(args) != 2 {
		env.warnf("entire hooks watch: want <root> <state-dir>, got %q\n", args)
		return 1
	}
	logf := func(msg string, kv ...any) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", time.Now().UTC().Format(time.RFC3339), msg)
		for i := 0; i+1 < len(kv); i += 2 {
			fmt.Fprintf(&b, " %v=%v", kv[i], kv[i+1])
		}
		env.warnf("%s\n", b.String())
	}
	err := fswatch.Run(ctx, fswatch.Options{Root: args[0], StateDir: args[1], Logf: logf})
	if err != nil && !errors.Is(err, fswatch.ErrRunning) {
		logf("watcher failed", "error", err)
		return 1
	}
	return 0
}
