package strategy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
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

// With FinishLater, a turn end whose final answer is not in the transcript
// yet saves the step at once; FinishTurn then waits for the answer and
// amends that same step with it, counting its usage. A finish the session
// has moved past changes nothing.
func TestFinishTurnAmendsTheStep(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	env, _ := manualEnv(t, clock)
	var reqs []TurnFinish
	env.FinishLater = func(r TurnFinish) error { reqs = append(reqs, r); return nil }
	ag, _ := agent.Get(agent.AgentNameClaudeCode)
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	m := NewManualCommit(env)
	ctx := context.Background()
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
		gittest.WriteFile(t, env.Repo.Root, fmt.Sprintf("f%d.txt", n), "x\n")
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
	branch := func() string {
		return checkpoint.ShadowBranchName(gittest.Git(t, env.Repo.Root, "rev-parse", "HEAD"), env.Repo.WorktreeID)
	}
	show := func(rev, file string) string {
		return gittest.Git(t, env.Repo.Root, "show", rev+":"+checkpoint.MetadataDirPrefix+"s1/"+file)
	}

	turn(1, "First done.")
	if len(reqs) != 1 {
		t.Fatalf("%d finish requests, want 1", len(reqs))
	}
	step := gittest.Git(t, env.Repo.Root, "rev-parse", branch())
	if s := show(step, checkpoint.SummaryFile); s != "First done." {
		t.Errorf("summary.txt before the finish %q", s)
	}
	clock.atOffset(150*time.Millisecond, func() { finalLine(1, "First done.") })
	if err := m.FinishTurn(ctx, reqs[0]); err != nil {
		t.Fatal(err)
	}
	tip := gittest.Git(t, env.Repo.Root, "rev-parse", branch())
	if tip == step || gittest.Git(t, env.Repo.Root, "rev-list", "--count", branch()) != "1" {
		t.Errorf("the step was not amended in place (tip %s, step %s)", tip, step)
	}
	if tr := show(tip, checkpoint.TranscriptFile); !strings.Contains(tr, "First done.") {
		t.Errorf("the amended step lacks the final answer:\n%s", tr)
	}
	st, _ := env.Sessions.Load("s1")
	if u := st.TokenUsage; u.OutputTokens != 8 || u.APICallCount != 2 {
		t.Errorf("usage after the finish %+v, want the final answer's counted", u)
	}

	// Turn 2 ends before its finisher runs: by then turn 3 has stored the
	// late line itself, and the finish changes nothing.
	turn(2, "Second done.")
	finalLine(2, "Second done.")
	turn(3, "Third done.")
	tip = gittest.Git(t, env.Repo.Root, "rev-parse", branch())
	if err := m.FinishTurn(ctx, reqs[1]); err != nil {
		t.Fatal(err)
	}
	if now := gittest.Git(t, env.Repo.Root, "rev-parse", branch()); now != tip {
		t.Error("a superseded finish moved the shadow branch")
	}
	if tr := show(tip, checkpoint.TranscriptFile); !strings.Contains(tr, "Second done.") {
		t.Error("turn 3's step lacks turn 2's late final answer")
	}
}
