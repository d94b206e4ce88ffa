package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
)

// The refs scenario: the history scenario's years of work in the git-refs
// layout (SPEC 10.3), --history checkpoints each on its own ref, pushed to
// a remote. Then what the layout promises is measured: a `git clone` of
// the remote transfers no checkpoint object; `explain --commit` in that
// clone fetches the one checkpoint it needs; explain's list and one
// checkpoint where all are present; a turn and its commit (condensation
// into a new ref). The history scenario measures the move from v1
// (`entire doctor migrate-checkpoints`).

func (b *bench) refs(s *scenario) error {
	n := b.opts.historyCheckpoints
	start := time.Now()
	ids, err := s.writeHistory(n, checkpoint.LayoutRefs)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scalebench: refs: %d checkpoint refs and linked commits written in %s\n", n, time.Since(start).Round(time.Second))
	runtime.GC()
	debug.FreeOSMemory()
	remote := filepath.Join(b.work, s.name, "remote.git")
	if _, err := s.git("init", "-q", "--bare", "-b", "main", remote); err != nil {
		return err
	}
	if _, err := s.git("remote", "add", "origin", remote); err != nil {
		return err
	}
	if _, err := s.git("push", "-q", "--no-verify", "origin", "main", checkpoint.RefPrefix+"*:"+checkpoint.RefPrefix+"*"); err != nil {
		return err
	}
	// All pushed: nothing waits in the push queue.
	if err := os.RemoveAll(filepath.Join(s.repo, ".git", "entire-checkpoint-queue")); err != nil {
		return err
	}
	input := fmt.Sprintf("%d checkpoint refs", n)

	// A clone over the pack protocol (file://), as from a forge.
	clone := filepath.Join(b.work, s.name, "clone")
	t0 := time.Now()
	if out, err := exec.Command("git", "clone", "-q", "file://"+remote, clone).CombinedOutput(); err != nil {
		return fmt.Errorf("clone: %w\n%s", err, out)
	}
	s.recordInProcess("git clone", input, time.Since(t0))
	got, err := countObjects(clone, "--all")
	if err != nil {
		return err
	}
	code, err := countObjects(remote, "main")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scalebench: refs: the clone received %d objects; main alone has %d\n", got, code)
	if got != code {
		return fmt.Errorf("the clone received %d objects, main alone has %d: checkpoint data was transferred", got, code)
	}
	mate, err := b.scenarioAt(s.name+"-clone", filepath.Join(b.work, s.name, "mate"))
	if err != nil {
		return err
	}
	mate.repo = clone
	os.Remove(mate.shimLog)
	rev := fmt.Sprintf("HEAD~%d", n/2)
	if err := mate.measureCommand("explain --commit (fetch)", input, "explain", "--no-pager", "--commit", rev); err != nil {
		return err
	}
	if refs, err := mate.git("for-each-ref", "--format=%(refname)", checkpoint.RefPrefix); err != nil {
		return err
	} else if k := len(strings.Fields(refs)); k != 1 {
		return fmt.Errorf("explain --commit fetched %d checkpoint refs, want 1", k)
	}
	s.results = append(s.results, mate.results...)

	if err := s.measureCommand("explain (list)", input, "explain", "--no-pager"); err != nil {
		return err
	}
	if err := s.measureCommand("explain -c <id>", input, "explain", "--no-pager", "-c", string(ids[n/2])); err != nil {
		return err
	}
	w, err := s.openTranscript()
	if err != nil {
		return err
	}
	defer w.close()
	// Two turns, each committed and pushed. The first push waits for the
	// remote (up to the hook's 1.5 s): a receive-pack that checks 20,000
	// refs, on this machine since the remote is local. Having seen that,
	// the next push leaves the checkpoint to the background push.
	for i, label := range []string{" (first)", ""} {
		if err := s.startTurn(w, fmt.Sprintf("add changelog entry %d", i)); err != nil {
			return err
		}
		if err := s.writeTool(w, "CHANGELOG.md", fmt.Sprintf("# Changes\n\n- refs bench %d\n", i)); err != nil {
			return err
		}
		if err := s.endTurn(w, "Added the entry.", input); err != nil {
			return err
		}
		if err := s.commit(fmt.Sprintf("Add changelog entry %d", i), input); err != nil {
			return err
		}
		s.pushLabel = label
		if err := s.pushMeasured(input); err != nil {
			return err
		}
	}
	s.pushLabel = ""
	return nil
}

// countObjects counts the objects reachable from revs in the repository
// at dir (git rev-list --objects).
func countObjects(dir string, revs ...string) (int, error) {
	out, err := exec.Command("git", append([]string{"-C", dir, "rev-list", "--objects"}, revs...)...).Output()
	if err != nil {
		return 0, fmt.Errorf("rev-list in %s: %w", dir, err)
	}
	return strings.Count(string(out), "\n"), nil
}
