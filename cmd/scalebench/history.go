package main

import (
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
	// The git-refs layout (refs.go) and the move to it.
	"git clone":                30 * time.Second,
	"explain --commit (fetch)": time.Second,
	// The hook holds a push at most 1.5 s (then the background push
	// goes on); the first push to a remote of 20,000 refs takes that.
	"git pre-push (first)":        2500 * time.Millisecond,
	"doctor migrate-checkpoints":  120 * time.Second,
	"migrate-checkpoints (again)": 5 * time.Second,
}

func (b *bench) history(s *scenario) error {
	n := b.opts.historyCheckpoints
	start := time.Now()
	ids, err := s.writeHistory(n, checkpoint.LayoutBranch)
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
	if err := s.pushMeasured(input); err != nil {
		return err
	}
	// The move to the git-refs layout, then a second run (what a run
	// stopped half way does again: it skips what is there).
	if err := s.measureCommand("doctor migrate-checkpoints", input, "doctor", "migrate-checkpoints"); err != nil {
		return err
	}
	return s.measureCommand("migrate-checkpoints (again)", input, "doctor", "migrate-checkpoints")
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
