package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/redact"
	"github.com/go-git/go-git/v5/plumbing"
)

// The history scenario: years of a team's work. A metadata branch of
// --history checkpoints written through the checkpoint writer, one commit
// each (the sharded tree, a session slot with its transcript and prompts),
// each linked from a commit of the code branch, all pushed to a remote.
// Then what a developer does on top of it is measured: explain's list and
// one checkpoint, a turn and its commit (condensation in post-commit), and
// a push after a teammate's push moved the remote's metadata branch (the
// merge and the secret scan of the one new checkpoint, in-process, then the
// pre-push hook as git runs it).

// stepBounds are the bounds of the history and team scenarios' steps (the
// rest have the --wall-limit bound).
var stepBounds = map[string]time.Duration{
	"explain (list)":       300 * time.Millisecond,
	"explain -c <id>":      200 * time.Millisecond,
	"git post-commit":      300 * time.Millisecond,
	"pre-push merge":       300 * time.Millisecond,
	"pre-push secret scan": 300 * time.Millisecond,
	teamPush:               30 * time.Second,
}

func (b *bench) history(s *scenario) error {
	n := b.opts.historyCheckpoints
	start := time.Now()
	ids, err := s.writeHistory(n)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scalebench: history: %d checkpoints and linked commits written in %s\n", n, time.Since(start).Round(time.Second))
	// Writing the history grew this process; the commands measured next
	// run through the shim, whose peak RSS is what theirs starts from
	// (see measureCommand). Give the memory back all the same.
	runtime.GC()
	debug.FreeOSMemory()
	remote := filepath.Join(b.work, s.name, "remote.git")
	if _, err := s.git("init", "-q", "--bare", remote); err != nil {
		return err
	}
	if _, err := s.git("remote", "add", "origin", remote); err != nil {
		return err
	}
	if _, err := s.git("push", "-q", "--no-verify", "origin", "main", checkpoint.MetadataBranch); err != nil {
		return err
	}
	if _, err := s.git("fetch", "-q", "origin"); err != nil {
		return err
	}
	input := fmt.Sprintf("%d checkpoints", n)
	if err := s.measureCommand("explain (list)", input, "explain", "--no-pager"); err != nil {
		return err
	}
	if err := s.measureCommand("explain -c <id>", input, "explain", "--no-pager", "-c", string(ids[n/2])); err != nil {
		return err
	}
	// A turn and its commit on top of the history.
	w, err := s.openTranscript()
	if err != nil {
		return err
	}
	defer w.close()
	if err := s.startTurn(w, "add the changelog entry"); err != nil {
		return err
	}
	if err := s.writeTool(w, "CHANGELOG.md", "# Changes\n\n- history bench\n"); err != nil {
		return err
	}
	if err := s.endTurn(w, "Added the entry.", input); err != nil {
		return err
	}
	if err := s.commit("Add the changelog entry", input); err != nil {
		return err
	}
	// A teammate's push moves the remote's metadata branch.
	mate := filepath.Join(b.work, s.name, "teammate")
	if out, err := exec.Command("git", "clone", "-q", "--no-checkout", remote, mate).CombinedOutput(); err != nil {
		return fmt.Errorf("clone the teammate: %w\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", mate, "fetch", "-q", "origin", checkpoint.MetadataBranch+":"+checkpoint.MetadataBranch).CombinedOutput(); err != nil {
		return fmt.Errorf("teammate fetch: %w\n%s", err, out)
	}
	mrepo, err := gitrepo.Open(mate, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		return err
	}
	if err := writeBenchCheckpoint(mrepo, checkpoint.NewStore(mrepo, time.Now), "f00d0000beef", "teammate-session", 1); err != nil {
		return err
	}
	if out, err := exec.Command("git", "-C", mate, "push", "-q", "--no-verify", "origin", checkpoint.MetadataBranch).CombinedOutput(); err != nil {
		return fmt.Errorf("teammate push: %w\n%s", err, out)
	}
	// In-process: the merge and the scan the pre-push hook makes.
	if _, err := s.git("fetch", "-q", "origin", "+refs/heads/"+checkpoint.MetadataBranch+":refs/remotes/origin/"+checkpoint.MetadataBranch); err != nil {
		return err
	}
	repo, err := gitrepo.Open(s.repo, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		return err
	}
	local, err := repo.ReadRef(plumbing.ReferenceName("refs/heads/" + checkpoint.MetadataBranch))
	if err != nil {
		return err
	}
	theirs, err := repo.ReadRef(plumbing.ReferenceName("refs/remotes/origin/" + checkpoint.MetadataBranch))
	if err != nil {
		return err
	}
	ctx := context.Background()
	t0 := time.Now()
	if _, err := push.MergeCommits(ctx, repo, local, theirs, push.MergeOptions{Checkpoints: true}); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	s.recordInProcess("pre-push merge", input, time.Since(t0))
	red, err := redact.New(redact.Options{})
	if err != nil {
		return err
	}
	t0 = time.Now()
	found, err := secretscan.ScanRange(ctx, repo, red, []plumbing.Hash{local}, []plumbing.Hash{theirs}, 0)
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	s.recordInProcess("pre-push secret scan", input, time.Since(t0))
	if len(found) > 0 {
		return fmt.Errorf("the scan found %d secrets in bench data", len(found))
	}
	// The real push, with the hook: it merges and pushes again.
	return s.pushMeasured(input)
}

// writeHistory writes n checkpoints through the checkpoint writer and the
// code commits that link them (git fast-import), and returns the IDs.
func (s *scenario) writeHistory(n int) ([]checkpoint.ID, error) {
	repo, err := gitrepo.Open(s.repo, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		return nil, err
	}
	store := checkpoint.NewStore(repo, time.Now)
	ids := make([]checkpoint.ID, n)
	for i := range ids {
		ids[i] = checkpoint.ID(fmt.Sprintf("%012x", uint64(i+1)*0x9e3779b97f4a7c15>>16))
		if err := writeBenchCheckpoint(repo, store, ids[i], fmt.Sprintf("session-%05d", i/3), i); err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", i, err)
		}
	}
	head, err := s.git("rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("git", "fast-import", "--quiet", "--force")
	cmd.Dir, cmd.Env = s.repo, s.env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(in)
	when := time.Now().Add(-time.Duration(n) * time.Hour).Unix()
	for i, id := range ids {
		msg := fmt.Sprintf("Change %d\n\nEntire-Checkpoint: %s\n", i, id)
		body := fmt.Sprintf("change %d\n", i)
		fmt.Fprintf(bw, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s", when+int64(i)*3600, len(msg), msg)
		if i == 0 {
			fmt.Fprintf(bw, "from %s\n", strings.TrimSpace(head))
		}
		fmt.Fprintf(bw, "M 100644 inline work/f%03d.txt\ndata %d\n%s\n", i%500, len(body), body)
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git fast-import: %w", err)
	}
	if _, err := s.git("reset", "-q", "--hard", "main"); err != nil {
		return nil, err
	}
	// Years of use have been packed many times over (git gc --auto).
	if _, err := s.git("gc", "-q"); err != nil {
		return nil, err
	}
	return ids, nil
}

// writeBenchCheckpoint writes one session slot into checkpoint id as a
// condensation does: metadata, prompts and a small transcript.
func writeBenchCheckpoint(repo *gitrepo.Repo, store *checkpoint.Store, id checkpoint.ID, session string, i int) error {
	app, err := checkpoint.NewJSONLAppender(repo, nil)
	if err != nil {
		return err
	}
	var t strings.Builder
	for j := range 6 {
		fmt.Fprintf(&t, `{"type":"user","uuid":"u-%d-%d","sessionId":%q,"message":{"role":"user","content":"step %d of change %d"}}`+"\n", i, j, session, j, i)
	}
	if err := app.Write([]byte(t.String())); err != nil {
		return err
	}
	state, err := app.Close()
	if err != nil {
		return err
	}
	_, err = store.WriteSession(context.Background(), id, checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: session, Strategy: checkpoint.StrategyManualCommit,
			CheckpointsCount: 2, FilesTouched: []string{fmt.Sprintf("work/f%03d.txt", i%500)}, Agent: agent.AgentType("Claude Code")},
		Transcript: state,
		Prompts:    fmt.Sprintf("change %d, first prompt\n\n---\n\nchange %d, second prompt", i, i),
	}, checkpoint.CommitInfo{})
	return err
}

// measureCommand runs `entire args...` in the repository and records it
// against the scenario's bound for name. It runs through the shim, as the
// hooks do: Linux starts the peak RSS of an exec'd child at its parent's
// (the memory the child shared before exec), and this process is large.
func (s *scenario) measureCommand(name, input string, args ...string) error {
	cmd := exec.Command(filepath.Join(s.b.shimDir, "entire"), args...)
	cmd.Dir, cmd.Env = s.repo, s.env
	os.Remove(s.shimLog)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("entire %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	recs, err := s.shimRecords()
	if err != nil || len(recs) != 1 {
		return fmt.Errorf("entire %s: %d measurements: %v", strings.Join(args, " "), len(recs), err)
	}
	s.record(name, input, recs[0].measurement())
	return nil
}

// recordInProcess records a step measured inside this process (its wall
// time only).
func (s *scenario) recordInProcess(name, input string, d time.Duration) {
	s.record(name, input, measurement{wall: d})
}

// pushMeasured pushes main to origin through the installed hooks and
// records the pre-push hook.
func (s *scenario) pushMeasured(input string) error {
	os.Remove(s.shimLog)
	cmd := exec.Command("git", "push", "-q", "origin", "main")
	cmd.Dir, cmd.Env = s.repo, s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git push: %w\n%s", err, out)
	}
	if strings.Contains(string(out), "could not push") {
		return fmt.Errorf("git push: %s", out)
	}
	recs, err := s.shimRecords()
	if err != nil {
		return fmt.Errorf("git push ran no entire hook: %w", err)
	}
	for _, rec := range recs {
		s.record(strings.TrimPrefix(strings.Join(rec.Args[:min(3, len(rec.Args))], " "), "hooks "), input, rec.measurement())
	}
	return nil
}
