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
	"github.com/entirecli/entire/checkpoint/lines"
	"github.com/entirecli/entire/explain/search"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// The lines scenario: per-line provenance and search at the size of years
// of work. The refs scenario's --history checkpoints and linked commits,
// then a 5,000-line file written by 250 more commits (20 lines each, and
// every fifth commit rewriting lines of earlier ones), each linked to a
// checkpoint whose line record says which turn wrote them. Measured:
// `entire blame` of the file (text and JSON), building the search index
// over every checkpoint once, a search once indexed, and indexing one new
// checkpoint (`entire-web index`, as the post-commit starts it).

// bigFileCommits and bigFileStep make the blamed file: its lines and the
// commits that wrote them.
const (
	bigFileCommits = 250
	bigFileStep    = 20
)

func init() {
	stepBounds["entire blame (5,000 lines)"] = 500 * time.Millisecond
	stepBounds["entire blame --json"] = 500 * time.Millisecond
	stepBounds["entire search (first: index all)"] = 10 * time.Minute
	stepBounds["entire search"] = 300 * time.Millisecond
	stepBounds["index one checkpoint (in-process)"] = 50 * time.Millisecond
	stepBounds["entire-web index (one new)"] = 500 * time.Millisecond
}

func (b *bench) lines(s *scenario) error {
	web := filepath.Join(filepath.Dir(b.bin), "entire-web")
	if _, err := os.Stat(web); err != nil {
		return fmt.Errorf("the lines scenario runs entire search, which needs entire-web beside %s: %w", b.bin, err)
	}
	n := b.opts.historyCheckpoints
	start := time.Now()
	if _, err := s.writeHistory(n, checkpoint.LayoutRefs); err != nil {
		return err
	}
	repo, err := gitrepo.Open(s.repo, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		return err
	}
	if err := s.writeBigFile(repo); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scalebench: lines: %d checkpoints and a %d-line file written in %s\n", n+bigFileCommits, bigFileCommits*bigFileStep, time.Since(start).Round(time.Second))
	runtime.GC()
	debug.FreeOSMemory()
	input := fmt.Sprintf("%d checkpoints, %d lines", n+bigFileCommits, bigFileCommits*bigFileStep)
	if err := s.measureCommand("entire blame (5,000 lines)", input, "blame", "--no-pager", "big.go"); err != nil {
		return err
	}
	if err := s.measureCommand("entire blame --json", input, "blame", "--json", "big.go"); err != nil {
		return err
	}
	if err := s.measureCommand("entire search (first: index all)", input, "search", "change", "1234"); err != nil {
		return err
	}
	if err := s.measureCommand("entire search", input, "search", "--json", "grow", "step", "42"); err != nil {
		return err
	}
	// One more checkpoint arrives with its commit: the post-commit's
	// indexer takes it. Measured in this process (open the index, index
	// the checkpoint, close it) and as the background process runs it
	// (which starts entire-web first).
	store := checkpoint.NewStore(repo, time.Now).WithLayout(checkpoint.LayoutRefs)
	for k, name := range []string{"index one checkpoint (in-process)", "entire-web index (one new)"} {
		id := checkpoint.NewULID(time.Now())
		if err := writeBenchCheckpoint(repo, store, id, "session-new", n+bigFileCommits+k); err != nil {
			return err
		}
		commit, err := s.git("commit", "-q", "--allow-empty", "--no-verify", "-m", "One more\n\nEntire-Checkpoint: "+id.String())
		if err != nil {
			return fmt.Errorf("%w: %s", err, commit)
		}
		head, err := s.git("rev-parse", "HEAD")
		if err != nil {
			return err
		}
		t0 := time.Now()
		if k == 0 {
			x, err := search.Open(repo, store, nil, 5*time.Second)
			if err != nil {
				return err
			}
			if _, err := x.Add(context.Background(), []checkpoint.ID{id}, strings.TrimSpace(head)); err != nil {
				x.Close()
				return err
			}
			if err := x.Close(); err != nil {
				return err
			}
		} else {
			cmd := exec.Command(web, "index", "--commit", strings.TrimSpace(head), id.String())
			cmd.Dir, cmd.Env = s.repo, s.env
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("entire-web index: %w\n%s", err, out)
			}
		}
		s.recordInProcess(name, input, time.Since(t0))
	}
	return nil
}

// writeBigFile commits big.go over bigFileCommits commits, each linked to
// a checkpoint with a line record of the lines it wrote, through git
// fast-import and the checkpoint writer.
func (s *scenario) writeBigFile(repo *gitrepo.Repo) error {
	head, err := s.git("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	store := checkpoint.NewStore(repo, time.Now).WithLayout(checkpoint.LayoutRefs)
	cmd := exec.Command("git", "fast-import", "--quiet", "--force")
	cmd.Dir, cmd.Env = s.repo, s.env
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	bw := bufio.NewWriter(in)
	var file []string
	when := time.Now().Add(-time.Duration(bigFileCommits) * time.Minute)
	for i := range bigFileCommits {
		// Every fifth commit rewrites five lines of the earlier ones.
		owners := map[int]bool{}
		if i%5 == 4 {
			for k := range 5 {
				at := (i*37 + k*101) % len(file)
				file[at] = fmt.Sprintf("\tx%d := rewrite(%d, %d) // parser loop", at, i, k)
				owners[at] = true
			}
		}
		for k := range bigFileStep {
			owners[len(file)] = true
			file = append(file, fmt.Sprintf("\tv%d_%d := step(%d) // change %d", i, k, k, i))
		}
		text := "package big\n\nfunc Big() {\n" + strings.Join(file, "\n") + "\n}\n"
		const header = 3 // the lines before the body
		rec := lines.Record{SessionID: fmt.Sprintf("big-session-%03d", i/3), Agent: "Claude Code"}
		owned := make([]lines.Owner, lines.CountLines(text))
		for j := range owned {
			owned[j] = lines.Owner{Turn: -1}
			if owners[j-header] {
				owned[j] = lines.Owner{Turn: 1 + i%3}
			}
		}
		blob := plumbing.ComputeHash(plumbing.BlobObject, []byte(text))
		rec.Turns = []lines.Turn{{Turn: 1 + i%3, Time: when.Add(time.Duration(i) * time.Minute), Prompt: fmt.Sprintf("grow big.go, step %d", i)}}
		rec.Files = map[string]lines.FileLines{"big.go": {Blob: blob.String(), Lines: len(owned), Fingerprint: lines.Fingerprint(text), Ranges: lines.Ranges(owned)}}
		data, err := rec.Marshal()
		if err != nil {
			return err
		}
		id := checkpoint.NewULID(when.Add(time.Duration(i) * time.Minute))
		if err := writeLinedCheckpoint(repo, store, id, fmt.Sprintf("big-session-%03d", i/3), i, data); err != nil {
			return err
		}
		msg := fmt.Sprintf("Grow big.go, step %d\n\nEntire-Checkpoint: %s\n", i, id)
		fmt.Fprintf(bw, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s", when.Unix()+int64(i)*60, len(msg), msg)
		if i == 0 {
			fmt.Fprintf(bw, "from %s\n", strings.TrimSpace(head))
		}
		fmt.Fprintf(bw, "M 100644 inline big.go\ndata %d\n%s\n", len(text), text)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	if _, err := s.git("reset", "-q", "--hard", "main"); err != nil {
		return err
	}
	_, err = s.git("gc", "-q")
	return err
}

// writeLinedCheckpoint is writeBenchCheckpoint with a line record in the
// slot.
func writeLinedCheckpoint(repo *gitrepo.Repo, store *checkpoint.Store, id checkpoint.ID, session string, i int, record []byte) error {
	app, err := checkpoint.NewJSONLAppender(repo, nil)
	if err != nil {
		return err
	}
	line := fmt.Sprintf(`{"type":"user","uuid":"u-big-%d","sessionId":%q,"message":{"role":"user","content":"grow big.go, step %d"}}`+"\n", i, session, i)
	if err := app.Write([]byte(line)); err != nil {
		return err
	}
	state, err := app.Close()
	if err != nil {
		return err
	}
	_, err = store.WriteSession(context.Background(), id, checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: session, Strategy: checkpoint.StrategyManualCommit,
			CheckpointsCount: 1, FilesTouched: []string{"big.go"}, Agent: agent.AgentType("Claude Code")},
		Transcript: state,
		Prompts:    fmt.Sprintf("grow big.go, step %d", i),
		Files:      map[string][]byte{lines.File: record},
	}, checkpoint.CommitInfo{})
	return err
}
