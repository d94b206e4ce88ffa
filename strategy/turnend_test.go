package strategy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// fakeClock is an injected clock whose time moves only when the code under
// test waits; hooks run at given times.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	at    []time.Time
	hooks []func()
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After advances the clock by d, runs the hooks now due and returns a
// fired channel.
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for i := 0; i < len(c.at); {
		if !c.at[i].After(c.now) {
			due = append(due, c.hooks[i])
			c.at = append(c.at[:i], c.at[i+1:]...)
			c.hooks = append(c.hooks[:i], c.hooks[i+1:]...)
			continue
		}
		i++
	}
	now := c.now
	c.mu.Unlock()
	for _, h := range due {
		h()
	}
	ch := make(chan time.Time, 1)
	ch <- now
	return ch
}

// at runs fn once the clock has moved d past its start.
func (c *fakeClock) atOffset(d time.Duration, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = append(c.at, c.now.Add(d))
	c.hooks = append(c.hooks, fn)
}

func appendJSONL(t *testing.T, path string, lines ...any) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		b, _ := json.Marshal(l)
		f.Write(append(b, '\n'))
	}
}

// manualEnv is a manual-commit environment over a fresh repository whose
// clock is c.
func manualEnv(t *testing.T, c *fakeClock) (*Env, *bytes.Buffer) {
	t.Helper()
	env, _ := testEnv(t)
	env.Settings = settings.Defaults()
	var logs bytes.Buffer
	env.Log = slog.New(slog.NewTextHandler(&logs, nil))
	env.Now, env.After = c.Now, c.After
	return env, &logs
}

// Claude Code may run Stop before it has written the turn's last assistant
// line: the turn end waits (by the injected clock) until the line with the
// payload's last_assistant_message is there, and the checkpoint holds it.
func TestTurnEndWaitsForTheFinalAnswer(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	env, logs := manualEnv(t, clock)
	ag, err := agent.Get(agent.AgentNameClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	in := TurnInput{Agent: ag, SessionID: "s1", TranscriptPath: transcript, Prompt: "write a"}
	m := NewManualCommit(env)
	ctx := context.Background()
	if err := m.TurnStart(ctx, in); err != nil {
		t.Fatal(err)
	}
	appendJSONL(t, transcript,
		map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "write a"}},
		map[string]any{"type": "assistant", "uuid": "a1", "message": map[string]any{"id": "m1", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Write", "input": map[string]any{"file_path": "a.txt", "content": "a\n"}}}}})
	gittest.WriteFile(t, env.Repo.Root, "a.txt", "a\n")
	final := "Wrote a.txt for you."
	clock.atOffset(300*time.Millisecond, func() {
		appendJSONL(t, transcript, map[string]any{"type": "assistant", "uuid": "a2", "message": map[string]any{"id": "m2", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": final}}}})
	})
	start := clock.Now()
	in.End = agent.TurnEnd{FinalAnswer: final, HasFinalAnswer: true}
	if err := m.TurnEnd(ctx, in); err != nil {
		t.Fatal(err)
	}
	if waited := clock.Now().Sub(start); waited < 300*time.Millisecond || waited >= turnEndWaitLimit {
		t.Errorf("waited %s by the clock, want from 300ms to below the %s limit", waited, turnEndWaitLimit)
	}
	branch := checkpoint.ShadowBranchName(gittest.Git(t, env.Repo.Root, "rev-parse", "HEAD"), env.Repo.WorktreeID)
	stored := gittest.Git(t, env.Repo.Root, "show", branch+":"+checkpoint.MetadataDirPrefix+"s1/"+checkpoint.TranscriptFile)
	if !strings.Contains(stored, final) {
		t.Errorf("the checkpoint's transcript lacks the final answer:\n%s", stored)
	}
	if s := gittest.Git(t, env.Repo.Root, "show", branch+":"+checkpoint.MetadataDirPrefix+"s1/"+checkpoint.SummaryFile); s != final {
		t.Errorf("summary.txt = %q", s)
	}
	if strings.Contains(logs.String(), "does not show the turn's end") {
		t.Errorf("the wait expired:\n%s", logs)
	}
}

// A final answer that never arrives costs the limit, by the injected clock,
// and the turn is still checkpointed, with the payload's answer as summary.
func TestTurnEndWaitIsBounded(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	env, logs := manualEnv(t, clock)
	ag, _ := agent.Get(agent.AgentNameClaudeCode)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	in := TurnInput{Agent: ag, SessionID: "s1", TranscriptPath: transcript, Prompt: "write a"}
	m := NewManualCommit(env)
	ctx := context.Background()
	if err := m.TurnStart(ctx, in); err != nil {
		t.Fatal(err)
	}
	appendJSONL(t, transcript, map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "write a"}})
	gittest.WriteFile(t, env.Repo.Root, "a.txt", "a\n")
	start := clock.Now()
	in.End = agent.TurnEnd{FinalAnswer: "never written", HasFinalAnswer: true}
	if err := m.TurnEnd(ctx, in); err != nil {
		t.Fatal(err)
	}
	if waited := clock.Now().Sub(start); waited < turnEndWaitLimit || waited > turnEndWaitLimit+turnEndPoll {
		t.Errorf("waited %s, want the %s limit", waited, turnEndWaitLimit)
	}
	if !strings.Contains(logs.String(), "does not show the turn's end") {
		t.Errorf("no log line for the expired wait:\n%s", logs)
	}
	branch := checkpoint.ShadowBranchName(gittest.Git(t, env.Repo.Root, "rev-parse", "HEAD"), env.Repo.WorktreeID)
	if s := gittest.Git(t, env.Repo.Root, "show", branch+":"+checkpoint.MetadataDirPrefix+"s1/"+checkpoint.SummaryFile); s != "never written" {
		t.Errorf("summary.txt = %q, want the payload's final answer", s)
	}
}

// An agent that writes its transcript before the hook (Gemini CLI) is not
// waited for.
func TestTurnEndNoWaitForOtherAgents(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	env, _ := manualEnv(t, clock)
	ag := stubAgent{}
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(transcript, nil, 0o600)
	in := TurnInput{Agent: ag, SessionID: "s1", TranscriptPath: transcript, End: agent.TurnEnd{FinalAnswer: "x", HasFinalAnswer: true}}
	start := clock.Now()
	NewManualCommit(env).env.awaitTurnEnd(context.Background(), in, agent.Position{})
	if clock.Now() != start {
		t.Errorf("waited %s for an agent without a turn-end watch", clock.Now().Sub(start))
	}
}

// stubAgent is an agent with no optional capabilities.
type stubAgent struct{ agent.Agent }

// A session whose cursor was lost (a rewind by an older build) is not
// counted twice: the turn end rescans its checkpoint scope and replaces
// the accumulated usage and prompts instead of adding to them.
func TestLostCursorRescansTheScope(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	env, logs := manualEnv(t, clock)
	ag, _ := agent.Get(agent.AgentNameClaudeCode)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	m := NewManualCommit(env)
	ctx := context.Background()
	turn := func(n int) {
		prompt := fmt.Sprintf("turn %d", n)
		in := TurnInput{Agent: ag, SessionID: "s1", TranscriptPath: transcript, Prompt: prompt}
		if err := m.TurnStart(ctx, in); err != nil {
			t.Fatal(err)
		}
		file := fmt.Sprintf("f%d.txt", n)
		appendJSONL(t, transcript,
			map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", n), "message": map[string]any{"role": "user", "content": prompt}},
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", n), "message": map[string]any{"id": fmt.Sprintf("m%d", n), "role": "assistant",
				"usage":   map[string]any{"input_tokens": 10, "output_tokens": 1},
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("t%d", n), "name": "Write", "input": map[string]any{"file_path": file}}}}})
		gittest.WriteFile(t, env.Repo.Root, file, "x\n")
		in.End = agent.TurnEnd{HasFinalAnswer: true}
		if err := m.TurnEnd(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	turn(1)
	turn(2)
	if err := env.Sessions.Update("s1", func(st *session.State, _ bool) error {
		st.TranscriptCursor = nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	turn(3)
	st, err := env.Sessions.Load("s1")
	if err != nil {
		t.Fatal(err)
	}
	if u := st.TokenUsage; u == nil || u.InputTokens != 30 || u.APICallCount != 3 {
		t.Errorf("usage after a lost cursor: %+v, want 3 calls, 30 input tokens", u)
	}
	branch := checkpoint.ShadowBranchName(gittest.Git(t, env.Repo.Root, "rev-parse", "HEAD"), env.Repo.WorktreeID)
	if p := gittest.Git(t, env.Repo.Root, "show", branch+":"+checkpoint.MetadataDirPrefix+"s1/"+checkpoint.PromptFile); p != "turn 1\n\n---\n\nturn 2\n\n---\n\nturn 3" {
		t.Errorf("prompt.txt %q", p)
	}
	if !strings.Contains(logs.String(), "rescanning the checkpoint scope") {
		t.Errorf("no log line for the rescan:\n%s", logs)
	}
}

// With FinishLater, a turn end records the work tree as it stands and
// reads nothing of the transcript; FinishTurnEnds then writes the steps in
// order: the newest waits for a final answer the agent writes late, and a
// turn finished after the next one started keeps the next one's lines
// out. A user edit measured against a pending turn end names its step once
// written.
func TestTurnEndsFinishedLater(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	env, _ := manualEnv(t, clock)
	var reqs []string
	env.FinishLater = func(id string) error { reqs = append(reqs, id); return nil }
	ag, _ := agent.Get(agent.AgentNameClaudeCode)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	m := NewManualCommit(env)
	ctx := context.Background()
	root := env.Repo.Root
	turn := func(n int, final string) {
		t.Helper()
		in := TurnInput{Agent: ag, SessionID: "s1", TranscriptPath: transcript, Prompt: fmt.Sprintf("turn %d", n)}
		if err := m.TurnStart(ctx, in); err != nil {
			t.Fatal(err)
		}
		appendJSONL(t, transcript,
			map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", n), "message": map[string]any{"role": "user", "content": in.Prompt}},
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", n), "message": map[string]any{"id": fmt.Sprintf("m%d", n), "role": "assistant",
				"usage":   map[string]any{"input_tokens": 10, "output_tokens": 1},
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("t%d", n), "name": "Write", "input": map[string]any{"file_path": fmt.Sprintf("f%d.txt", n)}}}}})
		gittest.WriteFile(t, root, fmt.Sprintf("f%d.txt", n), "x\n")
		in.End = agent.TurnEnd{FinalAnswer: final, HasFinalAnswer: true}
		start := clock.Now()
		if err := m.TurnEnd(ctx, in); err != nil {
			t.Fatal(err)
		}
		if waited := clock.Now().Sub(start); waited != 0 {
			t.Errorf("turn %d: the hook waited %s", n, waited)
		}
	}
	finalLine := func(n int, text string) {
		appendJSONL(t, transcript, map[string]any{"type": "assistant", "uuid": fmt.Sprintf("f%d", n), "message": map[string]any{"id": fmt.Sprintf("mf%d", n), "role": "assistant",
			"usage": map[string]any{"input_tokens": 5, "output_tokens": 7}, "content": []any{map[string]any{"type": "text", "text": text}}}})
	}
	branch := checkpoint.ShadowBranchName(gittest.Git(t, root, "rev-parse", "HEAD"), env.Repo.WorktreeID)
	show := func(rev, file string) string {
		return gittest.Git(t, root, "show", rev+":"+checkpoint.MetadataDirPrefix+"s1/"+file)
	}

	turn(1, "First done.")
	if len(reqs) != 1 {
		t.Fatalf("%d finish requests, want 1", len(reqs))
	}
	if out, err := gittest.GitErr(root, "rev-parse", "--verify", "-q", branch); err == nil {
		t.Fatalf("a step was written by the hook: %s", out)
	}
	st, _ := env.Sessions.Load("s1")
	if len(st.TurnEnds) != 1 || st.TranscriptCursor != nil {
		t.Fatalf("after the hook: %d pending turn ends, cursor %+v", len(st.TurnEnds), st.TranscriptCursor)
	}
	// After the hook returned: the user's edit, not the turn's.
	gittest.WriteFile(t, root, "late.txt", "late\n")
	clock.atOffset(150*time.Millisecond, func() { finalLine(1, "First done.") })
	if err := m.FinishTurnEnds(ctx, "s1", nil); err != nil {
		t.Fatal(err)
	}
	step1 := gittest.Git(t, root, "rev-parse", branch)
	if files := gittest.Git(t, root, "ls-tree", "--name-only", step1); !strings.Contains(files, "f1.txt") || strings.Contains(files, "late.txt") {
		t.Errorf("step 1 files:\n%s", files)
	}
	if tr := show(step1, checkpoint.TranscriptFile); !strings.Contains(tr, "First done.") {
		t.Errorf("step 1 lacks the final answer written late:\n%s", tr)
	}
	st, _ = env.Sessions.Load("s1")
	if u := st.TokenUsage; u == nil || u.OutputTokens != 8 || u.APICallCount != 2 || len(st.TurnEnds) != 0 || st.CheckpointCount != 1 {
		t.Errorf("after the finish: usage %+v, %d pending, %d checkpoints", u, len(st.TurnEnds), st.CheckpointCount)
	}

	// Turns 2 and 3 end before a finisher runs; late.txt, measured at
	// turn 3's start against turn 2's pending work tree, is the user's.
	turn(2, "Second done.")
	finalLine(2, "Second done.")
	gittest.WriteFile(t, root, "late.txt", "later\n")
	turn(3, "Third done.")
	finalLine(3, "Third done.")
	st, _ = env.Sessions.Load("s1")
	if len(st.TurnEnds) != 2 {
		t.Fatalf("%d pending turn ends, want 2", len(st.TurnEnds))
	}
	if err := m.FinishTurnEnds(ctx, "s1", nil); err != nil {
		t.Fatal(err)
	}
	log := strings.Fields(gittest.Git(t, root, "rev-list", branch))
	if len(log) != 3 {
		t.Fatalf("%d steps, want 3", len(log))
	}
	step2, step3 := log[1], log[0]
	if tr := show(step2, checkpoint.TranscriptFile); !strings.Contains(tr, "Second done.") || strings.Contains(tr, "turn 3") {
		t.Errorf("step 2's transcript:\n%s", tr)
	}
	if p := show(step2, checkpoint.PromptFile); strings.Contains(p, "turn 3") || !strings.HasSuffix(p, "turn 2") {
		t.Errorf("step 2's prompts %q", p)
	}
	if p := show(step3, checkpoint.PromptFile); !strings.HasSuffix(p, "turn 3") {
		t.Errorf("step 3's prompts %q", p)
	}
	if tr := show(step3, checkpoint.TranscriptFile); !strings.Contains(tr, "Third done.") {
		t.Errorf("step 3's transcript lacks its answer")
	}
	st, _ = env.Sessions.Load("s1")
	var since string
	for _, e := range st.Changes.User {
		if e.Path == "late.txt" {
			since = e.Since
		}
	}
	if since != step2 {
		t.Errorf("late.txt measured since %q, want step 2 %s", since, step2)
	}
}

// The tree a turn end records is HEAD's tree with the work tree's
// changes, as `git add -A` would make it, whether it is built from HEAD or
// from the previous turn end's tree with only what changed since: edits,
// files set back to HEAD's content, deletions, new files, mode changes.
func TestTurnEndWorkTreeMatchesGit(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	env, _ := manualEnv(t, clock)
	env.FinishLater = func(string) error { return nil }
	root := env.Repo.Root
	for _, f := range []string{"a.txt", "d/b.txt", "d/e/c.txt", "x.sh"} {
		gittest.WriteFile(t, root, f, "base "+f+"\n")
	}
	gittest.Git(t, root, "add", "-A")
	gittest.Git(t, root, "commit", "-q", "-m", "base")
	ag, _ := agent.Get(agent.AgentNameClaudeCode)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	m := NewManualCommit(env)
	ctx := context.Background()
	oracle := func() string {
		idx := filepath.Join(t.TempDir(), "index")
		cmd := exec.Command("sh", "-c", "git add -A && git write-tree")
		cmd.Dir = root
		cmd.Env = append(gittest.Env(t.TempDir()), "GIT_INDEX_FILE="+idx)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	turns := []func(){
		func() { gittest.WriteFile(t, root, "a.txt", "one\n"); gittest.WriteFile(t, root, "n1.txt", "new\n") },
		func() { gittest.WriteFile(t, root, "d/b.txt", "two\n") },
		func() { gittest.WriteFile(t, root, "a.txt", "base a.txt\n") }, // back to HEAD's
		func() { os.Remove(filepath.Join(root, "d/e/c.txt")); os.Chmod(filepath.Join(root, "x.sh"), 0o755) },
		func() { gittest.WriteFile(t, root, "d/e/c.txt", "back\n"); os.Remove(filepath.Join(root, "n1.txt")) },
		func() {}, // nothing changed
		func() { os.RemoveAll(filepath.Join(root, "d")); gittest.WriteFile(t, root, "d2/f.txt", "f\n") },
	}
	for i, change := range turns {
		in := TurnInput{Agent: ag, SessionID: "s1", TranscriptPath: transcript, Prompt: fmt.Sprintf("turn %d", i)}
		if err := m.TurnStart(ctx, in); err != nil {
			t.Fatal(err)
		}
		appendJSONL(t, transcript, map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", i), "message": map[string]any{"role": "user", "content": in.Prompt}})
		change()
		if err := m.TurnEnd(ctx, in); err != nil {
			t.Fatal(err)
		}
		st, _ := env.Sessions.Load("s1")
		if want := oracle(); st.WorkTree == nil || st.WorkTree.Tree != want {
			t.Fatalf("turn %d: recorded tree %+v, want %s", i, st.WorkTree, want)
		}
	}
}

// A finisher starved by a busy machine (it runs at the lowest priority)
// holds the session's finish lock for as long as it is starved: settling
// waits for it only as long as it should need, then writes the steps
// itself, and the finisher, when it comes to them, finds them written.
func TestSettleDoesNotWaitForAStarvedFinisher(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	env, logs := manualEnv(t, clock)
	env.FinishLater = func(string) error { return nil }
	ag, _ := agent.Get(agent.AgentNameClaudeCode)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	m := NewManualCommit(env)
	ctx := context.Background()
	root := env.Repo.Root
	playTurn := func(n int) {
		t.Helper()
		in := TurnInput{Agent: ag, SessionID: "s1", TranscriptPath: transcript, Prompt: fmt.Sprintf("turn %d", n)}
		if err := m.TurnStart(ctx, in); err != nil {
			t.Fatal(err)
		}
		final := fmt.Sprintf("Turn %d done.", n)
		appendJSONL(t, transcript,
			map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", n), "message": map[string]any{"role": "user", "content": in.Prompt}},
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", n), "message": map[string]any{"id": fmt.Sprintf("m%d", n), "role": "assistant",
				"content": []any{map[string]any{"type": "text", "text": final}}}})
		gittest.WriteFile(t, root, fmt.Sprintf("f%d.txt", n), "x\n")
		in.End = agent.TurnEnd{FinalAnswer: final, HasFinalAnswer: true}
		if err := m.TurnEnd(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	playTurn(1)
	playTurn(2)
	starved, err := env.Sessions.LockTurnFinish("s1")
	if err != nil {
		t.Fatal(err)
	}
	defer starved.Close()
	start := time.Now()
	m.SettleTurnEnds(ctx, "s1")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("settling took %s beside a starved finisher", d)
	}
	st, _ := env.Sessions.Load("s1")
	if len(st.TurnEnds) != 0 || st.CheckpointCount != 2 {
		t.Fatalf("after settling: %d pending, %d checkpoints\n%s", len(st.TurnEnds), st.CheckpointCount, logs)
	}
	if err := env.Sessions.AwaitTurnFinishes(0); err != nil {
		t.Errorf("a finisher with nothing left is waited for: %v", err)
	}
	branch := checkpoint.ShadowBranchName(gittest.Git(t, root, "rev-parse", "HEAD"), env.Repo.WorktreeID)
	tip := gittest.Git(t, root, "rev-parse", branch)
	// The finisher gets the CPU at last: nothing is left for it.
	if err := m.FinishTurnEnds(ctx, "s1", func() { starved.Close() }); err != nil {
		t.Fatal(err)
	}
	if now := gittest.Git(t, root, "rev-parse", branch); now != tip || gittest.Git(t, root, "rev-list", "--count", branch) != "2" {
		t.Errorf("the late finisher moved the shadow branch: %s -> %s", tip, now)
	}

	// Two finishers at the same time write each step once.
	playTurn(3)
	playTurn(4)
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- m.FinishTurnEnds(ctx, "s1", nil) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := gittest.Git(t, root, "rev-list", "--count", branch); n != "4" {
		t.Errorf("%s steps after two concurrent finishers, want 4", n)
	}
	if files := gittest.Git(t, root, "ls-tree", "--name-only", branch+"~1"); !strings.Contains(files, "f3.txt") || strings.Contains(files, "f4.txt") {
		t.Errorf("step 3's files:\n%s", files)
	}
	tr := gittest.Git(t, root, "show", branch+":"+checkpoint.MetadataDirPrefix+"s1/"+checkpoint.TranscriptFile)
	for n := 1; n <= 4; n++ {
		if c := strings.Count(tr, fmt.Sprintf("Turn %d done.", n)); c != 1 {
			t.Errorf("the stored transcript holds turn %d's answer %d times", n, c)
		}
	}
	st, _ = env.Sessions.Load("s1")
	if len(st.TurnEnds) != 0 || st.CheckpointCount != 4 {
		t.Errorf("after two finishers: %d pending, %d checkpoints", len(st.TurnEnds), st.CheckpointCount)
	}
}
