package explain

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
)

func sampleView() *CheckpointView {
	return &CheckpointView{
		ID:      "a3b2c4d5e6f7",
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Author:  "Ada <ada@example.com>",
		Sessions: []SessionView{{
			ID: "s1", Agent: agent.AgentTypeClaudeCode,
			Prompts:    []string{"Add a parser for the config file format, with tests and error messages that name the line"},
			Transcript: []Entry{{Role: RoleUser, Text: "Add a parser"}, {Role: RoleTool, Tool: "Write", Text: "parse.go"}, {Role: RoleAssistant, Text: "Done."}},
		}},
		Tokens:          &agent.TokenUsage{InputTokens: 100, CacheReadTokens: 20, OutputTokens: 5, APICallCount: 2, SubagentTokens: &agent.TokenUsage{InputTokens: 3, APICallCount: 1}},
		CommitsSearched: true,
		Commits:         []Commit{{SHA: "0123456789abcdef", Date: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), Subject: "Add parser"}},
		Files:           []string{"parse.go", "parse_test.go"},
		Attribution:     &checkpoint.Attribution{AgentLines: 146, TotalCommitted: 200, HumanAdded: 50, HumanModified: 4, AgentPercentage: 73},
	}
}

const sampleHeader = `Checkpoint: a3b2c4d5e6f7
Session: s1 (Claude Code)
Created: 2026-01-02 03:04:05
Author: Ada <ada@example.com>
Tokens: 125 (input 100, cache write 0, cache read 20, output 5; 2 API calls; subagents 3 in 1 API calls)
Attribution: 73.0% agent (146 of 200 committed lines; human +50 ~4 -0)
Commits: (1)
  0123456 2026-01-03 Add parser
Intent: Add a parser for the config file format, with tests and error messages that n...
Outcome: (not generated)
`

func TestRenderCheckpoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*CheckpointView)
		mode Mode
		want string
	}{
		{"short", nil, ModeShort, sampleHeader},
		{"default", nil, ModeDefault, sampleHeader + `
Prompts: (1)
  1. Add a parser for the config file format, with tests and error messages that name the line

Files: (2)
  - parse.go
  - parse_test.go

Transcript (checkpoint scope):
[User] Add a parser
[Tool] Write: parse.go

[Assistant] Done.
`},
		{"summary", func(v *CheckpointView) {
			v.Summary = &checkpoint.Summary{Intent: "Parse configs", Outcome: "Parser added",
				Learnings: checkpoint.Learnings{Repo: []string{"uses make"}, Code: []checkpoint.CodeLearning{{Path: "parse.go", Line: 3, EndLine: 9, Finding: "state machine"}}},
				Friction:  []string{"flaky test"}, OpenItems: []string{"docs"}}
			v.Sessions[0].Transcript = nil
			v.Files = nil
		}, ModeFull, strings.Replace(sampleHeader, "Intent: Add a parser for the config file format, with tests and error messages that n...\nOutcome: (not generated)",
			"Intent: Parse configs\nOutcome: Parser added", 1) + `
Learnings:
  Repository:
    - uses make
  Code:
    - parse.go:3-9: state machine

Friction:
  - flaky test

Open Items:
  - docs

Prompts: (1)
  1. Add a parser for the config file format, with tests and error messages that name the line

Files: (0)

Transcript (full session):
(empty)
`},
		{"temporary without commits", func(v *CheckpointView) {
			v.Temporary, v.CommitsSearched, v.Tokens, v.Attribution, v.Author = true, false, nil, nil, ""
			v.Sessions[0].Prompts = nil
		}, ModeShort, "Checkpoint: a3b2c4d5e6f7 [temporary]\nSession: s1 (Claude Code)\nCreated: 2026-01-02 03:04:05\nTokens: not recorded\nIntent: (no prompt)\nOutcome: (not generated)\n"},
		{"task", func(v *CheckpointView) {
			v.Temporary, v.CommitsSearched, v.Tokens, v.Attribution, v.Author = true, false, nil, nil, ""
			v.Sessions[0].Prompts, v.Sessions[0].ToolUseID = nil, "toolu_main_630f5bf8_4_0"
		}, ModeShort, "Checkpoint: a3b2c4d5e6f7 [temporary]\nSession: s1 (Claude Code)\nTask: toolu_main_630f5bf8_4_0\nCreated: 2026-01-02 03:04:05\nTokens: not recorded\nIntent: (no prompt)\nOutcome: (not generated)\n"},
		{"task among sessions", func(v *CheckpointView) {
			v.Sessions = append(v.Sessions, SessionView{ID: "s2", Agent: agent.AgentTypeClaudeCode, ToolUseID: "toolu_main_630f5bf8_4_0"})
		}, ModeShort, strings.Replace(sampleHeader, "Session: s1 (Claude Code)\n", "Sessions: (2)\n  s1 (Claude Code)\n  s2 (Claude Code), task toolu_main_630f5bf8_4_0\n", 1)},
		{"no linked commit", func(v *CheckpointView) { v.Commits = nil }, ModeShort,
			strings.Replace(sampleHeader, "Commits: (1)\n  0123456 2026-01-03 Add parser\n", "Commits: No commits found on this branch (--search-all looks in every branch)\n", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := sampleView()
			if tc.edit != nil {
				tc.edit(v)
			}
			var b strings.Builder
			if err := RenderCheckpoint(&b, v, tc.mode); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestRenderList(t *testing.T) {
	t.Parallel()
	v := &ListView{Branch: "feature", Groups: []ListGroup{
		{ID: "a3b2c4d5e6f7", Prompt: "Add a parser", Commits: []Commit{{SHA: "0123456789", Date: time.Date(2026, 1, 3, 14, 5, 0, 0, time.UTC), Subject: "Add parser"}}},
		{ID: "session-with-a-long-id", Temporary: true, Task: true, Commits: []Commit{{SHA: "fedcba9876", Date: time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC), Subject: strings.Repeat("x", 90)}}},
	}}
	var b strings.Builder
	if err := RenderList(&b, v, nil); err != nil {
		t.Fatal(err)
	}
	want := "Branch: feature\nCheckpoints: 2\n\n[a3b2c4d5e6f7] \"Add a parser\"\n  01-03 14:05 (0123456) Add parser\n\n" +
		"[session-with] [Task] [temporary] (no prompt)\n  01-02 09:00 (fedcba9) " + strings.Repeat("x", 77) + "...\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	_ = RenderList(&b, &ListView{Branch: "HEAD (no commits yet)", Session: "abc"}, nil)
	if !strings.HasPrefix(b.String(), "Branch: HEAD (no commits yet)\nCheckpoints: 0\nFiltered by session: abc\n\nNo checkpoints found on this branch.\n") {
		t.Errorf("empty list:\n%s", b.String())
	}
}

func TestParseSummary(t *testing.T) {
	t.Parallel()
	for in, wantIntent := range map[string]string{
		`{"intent":"a","outcome":"b"}`:                                       "a",
		"```json\n{\"intent\":\"a\",\"outcome\":\"b\",\"friction\":[]}\n```": "a",
		"Here it is:\n{\"intent\":\"x\",\"outcome\":\"\"}\nThanks":           "x",
		`{"intent":"","outcome":""}`:                                         "",
		`no json here`:                                                       "",
		`{"intent": 5}`:                                                      "",
	} {
		s, err := ParseSummary(in)
		switch {
		case wantIntent == "" && err == nil:
			t.Errorf("ParseSummary(%q): no error", in)
		case wantIntent != "" && (err != nil || s.Intent != wantIntent):
			t.Errorf("ParseSummary(%q) = %+v, %v", in, s, err)
		}
	}
}

func TestSummarizer(t *testing.T) {
	t.Parallel()
	entries := []Entry{{Role: RoleUser, Text: "Fix it"}}
	var gotName string
	var gotArgs, gotEnv []string
	var gotStdin string
	s := &Summarizer{
		LookPath: func(name string) (string, error) {
			if name == "gemini" {
				return "", errors.New("not found")
			}
			return "/bin/" + name, nil
		},
		Run: func(_ context.Context, name string, args []string, stdin []byte, _ string, env []string) ([]byte, error) {
			gotName, gotArgs, gotEnv, gotStdin = name, args, env, string(stdin)
			return []byte(`{"type":"result","result":"` + "```json\\n{\\\"intent\\\":\\\"Fix\\\",\\\"outcome\\\":\\\"Fixed\\\"}\\n```" + `"}`), nil
		},
		Environ: []string{"HOME=/h", "GIT_DIR=/repo/.git"},
		TempDir: "/tmp",
	}
	sum, err := s.Summarize(context.Background(), agent.AgentTypeClaudeCode, entries, []string{"a.go"})
	if err != nil || sum.Intent != "Fix" || sum.Outcome != "Fixed" {
		t.Fatalf("Summarize = %+v, %v", sum, err)
	}
	if gotName != "/bin/claude" || strings.Join(gotArgs, " ") != "--print --output-format json --model sonnet --setting-sources " ||
		strings.Join(gotEnv, " ") != "HOME=/h" || !strings.Contains(gotStdin, "[User] Fix it\n") || !strings.Contains(gotStdin, "[Files Modified]\n- a.go\n") {
		t.Errorf("ran %s %q env %q stdin %q", gotName, gotArgs, gotEnv, gotStdin)
	}
	_, err = s.Summarize(context.Background(), agent.AgentTypeGemini, entries, nil)
	if !errors.Is(err, ErrAgentNotInstalled) {
		t.Errorf("gemini missing: %v", err)
	}
	var notInstalled *AgentNotInstalledError
	if !errors.As(err, &notInstalled) || notInstalled.Program != "gemini" {
		t.Errorf("gemini missing names %+v: %v", notInstalled, err)
	}
}
