package e2etest

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/lockfile"
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

// KilledCondensation commits the staged work with the installed hooks and
// kills (SIGKILL) the post-commit hook after it marked the condensation as
// pending and before it wrote the checkpoint: the metadata branch's lock
// is held meanwhile by this (live) test process, so the hook waits on it.
// It returns the checkpoint ID of the commit's trailer.
func (r *SessionRepo) KilledCondensation(msg string) string {
	t := r.T
	t.Helper()
	lock := metadataLock(t, r.Dir)
	if err := os.WriteFile(lock, lockfile.Self().Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(lock)
	gittest.Git(t, r.Dir, "add", "-A")
	cmd := GitCmd(t, r, "commit", "-q", "-m", msg)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pending := GitPath(t, r.Dir, "entire-pending")
	var pid int
	AwaitDir(t, pending, 20*time.Second, "post-commit to mark a pending condensation in "+pending, func() bool {
		entries, _ := os.ReadDir(pending)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".new.lock") {
				continue // the mark's spare, before it is linked
			}
			var owner lockfile.Owner
			if b, err := os.ReadFile(filepath.Join(pending, e.Name())); err == nil && json.Unmarshal(b, &owner) == nil {
				pid = owner.PID
			}
		}
		return pid != 0
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the post-commit hook (pid %d): %v", pid, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("git commit: %v", err)
	}
	id := CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("the commit got no trailer")
	}
	if HasCheckpoint(t, r.Dir, id) {
		t.Fatal("the killed post-commit wrote the checkpoint anyway")
	}
	return id
}

// killEntireIn SIGKILLs the entire processes whose working directory is
// dir or below it.
func killEntireIn(dir string) {
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", p.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "entire" {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", p.Name(), "cwd"))
		if err != nil || cwd != dir && !strings.HasPrefix(cwd, dir+"/") {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
