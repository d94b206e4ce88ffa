//go:build torture

package torture

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// killRounds is how many random SIGKILLs the kill test deals in all,
// spread over killWorkers repositories played in parallel.
// ENTIRE_KILL_ROUNDS deals more (or fewer).
const (
	killRounds  = 60
	killWorkers = 3
)

// Random SIGKILLs of entire wherever it runs (agent hooks, the detached
// turn finisher, the git hooks of a commit, rewinds), each followed by a
// normal turn and commit: every later turn and commit succeeds and is
// checkpointed, no trailer points to a missing checkpoint once the next
// turn and commit ran, no stale lock is in the way, and `git fsck
// --strict` is clean.
func TestKillTorture(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds entire's processes through /proc")
	}
	t.Parallel()
	// Every run plays new sequences, so that runs add up to more distinct
	// kills than one long fixed sequence would; the seed is logged, and
	// ENTIRE_KILL_SEED replays a run's sequences (the kill times still
	// vary).
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ENTIRE_KILL_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ENTIRE_KILL_SEED=%q: %v", s, err)
		}
		seed = v
	}
	rounds := killRounds
	if s := os.Getenv("ENTIRE_KILL_ROUNDS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < killWorkers {
			t.Fatalf("ENTIRE_KILL_ROUNDS=%q: want a number of at least %d", s, killWorkers)
		}
		rounds = v
	}
	t.Logf("ENTIRE_KILL_SEED=%d ENTIRE_KILL_ROUNDS=%d", seed, rounds)
	for w := range killWorkers {
		t.Run(strconv.Itoa(w), func(t *testing.T) {
			t.Parallel()
			tortureRepo(t, seed+uint64(w), rounds/killWorkers)
		})
	}
}

// tortureRepo plays rounds of one killed operation then a normal turn and
// commit on a new repository.
func tortureRepo(t *testing.T, seed uint64, rounds int) {
	r := e2etest.NewSessionRepo(t)
	rng := rand.New(rand.NewPCG(seed, seed*7919))
	r.PlayTurn("Start", map[string]string{"start.txt": "start\n"})
	kills := map[string]int{}
	for i := range rounds {
		victim := []string{"user-prompt-submit", "stop", "post-tool", "commit", "rewind"}[rng.IntN(5)]
		kills[victim]++
		switch victim {
		case "user-prompt-submit":
			r.Turn++
			r.KilledHook(rng, "user-prompt-submit", map[string]any{"prompt": fmt.Sprintf("killed prompt %d", i)})
			r.AppendTranscript(map[string]any{"type": "user", "uuid": fmt.Sprintf("k%d", i), "message": map[string]any{"role": "user", "content": "killed prompt"}})
			r.WriteFiles(map[string]string{fmt.Sprintf("k%d.txt", i): "k\n"})
			r.EndTurn(r.Dir, fmt.Sprintf("Done %d", i))
		case "stop":
			r.StartTurn(r.Dir, fmt.Sprintf("prompt %d, stop killed", i))
			r.WriteFiles(map[string]string{fmt.Sprintf("s%d.txt", i): "s\n"})
			answer := fmt.Sprintf("Done %d", i)
			r.AppendTranscript(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("sd%d", i), "message": map[string]any{"id": fmt.Sprintf("msg_sd%d", i), "role": "assistant", "content": []any{map[string]any{"type": "text", "text": answer}}}})
			r.KilledHook(rng, "stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": answer})
		case "post-tool":
			r.StartTurn(r.Dir, fmt.Sprintf("prompt %d, big output", i))
			r.KilledHook(rng, "post-tool", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_big%d", i),
				"tool_input": map[string]any{"command": "make"}, "tool_response": map[string]any{"stdout": e2etest.BigOutput(), "stderr": "", "interrupted": false}})
			r.WriteFiles(map[string]string{fmt.Sprintf("p%d.txt", i): "p\n"})
			r.EndTurn(r.Dir, fmt.Sprintf("Done %d", i))
		case "commit":
			r.PlayTurn(fmt.Sprintf("prompt %d, commit killed", i), map[string]string{fmt.Sprintf("c%d.txt", i): "c\n"})
			r.MustGit("add", "-A")
			cmd := e2etest.GitCmd(t, r, "commit", "-q", "-m", fmt.Sprintf("Killed commit %d", i))
			if out, err := r.KillDuring(rng, cmd, 250*time.Millisecond); err != nil {
				t.Fatalf("round %d: git commit failed when entire was killed: %v\n%s", i, err, out)
			}
		case "rewind":
			pts := r.Points()
			cmd := exec.Command(e2etest.EntireBin(), "rewind", "--to", pts[rng.IntN(len(pts))].ID)
			cmd.Dir = r.Dir
			cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
			r.KillDuring(rng, cmd, 150*time.Millisecond)
		}

		// A normal turn and commit.
		prompt := fmt.Sprintf("Normal turn %d", i)
		r.PlayTurn(prompt, map[string]string{fmt.Sprintf("n%d.txt", i): "n\n"})
		r.MustGit("add", "-A")
		out, err := r.GitIn(r.Dir, nil, "commit", "-q", "-m", fmt.Sprintf("Round %d", i))
		if err != nil {
			t.Fatalf("round %d (%s killed): git commit: %v\n%s", i, victim, err, out)
		}
		id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
		if id == "" {
			t.Fatalf("round %d (%s killed): the commit after a normal turn is not linked", i, victim)
		}
		if p, err := exec.Command("git", "-C", r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")).CombinedOutput(); err != nil || !strings.Contains(string(p), prompt) {
			tree, _ := exec.Command("git", "-C", r.Dir, "ls-tree", "-r", "entire/checkpoints/v1", id[:2]+"/"+id[2:]).CombinedOutput()
			meta, _ := exec.Command("git", "-C", r.Dir, "show", e2etest.CpPath(id, "0/metadata.json")).CombinedOutput()
			t.Fatalf("round %d (%s killed): checkpoint %s lacks the turn's prompt (%v):\n%s\ntree:\n%s\nmeta:\n%s\nlog:\n%s", i, victim, id, err, p, tree, meta, logTail(r.Dir, 8))
		}
		t.Logf("round %d: %s killed", i, victim)
		assertTrailersResolve(t, r.Dir)
		if t.Failed() {
			t.Fatalf("log:\n%s", logTail(r.Dir, 30))
		}
	}
	t.Logf("kills: %v", kills)
	gittest.Fsck(t, r.Dir)
}

// assertTrailersResolve fails the test for a commit of HEAD's history
// whose Entire-Checkpoint trailer names no checkpoint of the metadata
// branch.
func assertTrailersResolve(t *testing.T, dir string) {
	t.Helper()
	stored := map[string]bool{}
	shards := strings.Fields(gittest.Git(t, dir, "ls-tree", "-r", "-d", "--name-only", "entire/checkpoints/v1"))
	for _, s := range shards {
		stored[s] = true
	}
	var dangling []string
	for _, l := range strings.Split(gittest.Git(t, dir, "log", "--format=%h %(trailers:key=Entire-Checkpoint,valueonly,separator=%x2C)", "HEAD"), "\n") {
		commit, ids, _ := strings.Cut(l, " ")
		for _, id := range strings.Split(ids, ",") {
			if id = strings.TrimSpace(id); id != "" && (len(id) != 12 || !stored[id[:2]+"/"+id[2:]]) {
				dangling = append(dangling, commit+" "+id)
			}
		}
	}
	if len(dangling) > 0 {
		t.Errorf("trailers naming no stored checkpoint (commit, ID): %v", dangling)
	}
}

// logTail returns the last n lines of entire's log of a repository.
func logTail(dir string, n int) string {
	lines := strings.Split(strings.TrimSpace(e2etest.LogText(dir)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// A transcript cut back below the checkpoint scope's start, with the
// session state not told (a rewind killed between writing the transcript
// and recording it), loses no turn: the next turn's checkpoint holds its
// prompt.
func TestE2ETranscriptCutBelowScopeStart(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("First", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "a")
	r.PlayTurn("Second", map[string]string{"b.txt": "b\n"})
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "b")
	// Back to the transcript as it was after the first turn.
	data, err := os.ReadFile(r.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(r.Transcript, []byte(strings.Join(lines[:3], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	r.PlayTurn("Third", map[string]string{"c.txt": "c\n"})
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "c")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if p, _ := exec.Command("git", "-C", r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")).Output(); !strings.Contains(string(p), "Third") {
		t.Fatalf("prompt.txt %q lacks the turn's prompt\n%s", p, e2etest.LogText(r.Dir))
	}
}
