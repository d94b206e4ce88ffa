package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
)

// ErrAgentNotInstalled is returned by Summarizer.Summarize when the agent's
// command-line program is not on PATH; the error is an
// *AgentNotInstalledError, which names the program.
var ErrAgentNotInstalled = errors.New("explain: agent CLI not installed")

// AgentNotInstalledError is the error of Summarizer.Summarize when no
// program can summarize for an agent type. It is ErrAgentNotInstalled.
type AgentNotInstalledError struct {
	// Agent is the agent type asked for.
	Agent agent.AgentType
	// Program is the program that summarizes for Agent and is not on
	// PATH, or "" when no registered agent can summarize.
	Program string
}

func (e *AgentNotInstalledError) Error() string {
	if e.Program == "" {
		return fmt.Sprintf("%v: no agent's program summarizes for %s", ErrAgentNotInstalled, e.Agent)
	}
	return fmt.Sprintf("%v: %s is not on PATH", ErrAgentNotInstalled, e.Program)
}

// Is reports whether target is ErrAgentNotInstalled.
func (e *AgentNotInstalledError) Is(target error) bool { return target == ErrAgentNotInstalled }

// summaryInstructions is the fixed part of the summary prompt (SPEC 7.2).
const summaryInstructions = `You are reviewing the record of a coding session between a developer and an AI coding agent.
Summarize it for a teammate who will read it next to the commit it produced.

Answer with one JSON object and nothing else (no prose, no code fences), with exactly these keys:
{
  "intent": "one sentence: what the developer wanted",
  "outcome": "one sentence: what was actually done",
  "learnings": {
    "repo": ["facts about this repository worth remembering"],
    "code": [{"path": "file path", "line": 0, "end_line": 0, "finding": "what was learned about this code"}],
    "workflow": ["lessons about how to work in this project"]
  },
  "friction": ["what slowed the session down or went wrong"],
  "open_items": ["what is left to do"]
}
Use empty arrays where there is nothing to say. Omit "line" and "end_line" when unknown.`

// SummaryPrompt builds the prompt of SPEC 7.2 for the condensed transcript
// entries of a checkpoint's scope and the files it modified.
func SummaryPrompt(entries []Entry, files []string) string {
	var b strings.Builder
	b.WriteString(summaryInstructions)
	b.WriteString("\n\n<transcript>\n")
	for _, e := range entries {
		b.WriteString(e.Line())
		b.WriteByte('\n')
	}
	b.WriteString("</transcript>\n")
	if len(files) > 0 {
		b.WriteString("\n[Files Modified]\n")
		for _, f := range files {
			b.WriteString("- " + f + "\n")
		}
	}
	return b.String()
}

// ParseSummary parses an agent's answer to SummaryPrompt: the JSON object,
// possibly inside ``` fences or surrounded by prose. It returns an error
// when no JSON object with an intent or outcome is found.
func ParseSummary(text string) (*checkpoint.Summary, error) {
	s := strings.TrimSpace(text)
	s = strings.TrimPrefix(s, "```json")
	s = strings.TrimPrefix(s, "```")
	s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return nil, fmt.Errorf("parse summary: no JSON object in the answer %q", Truncate(text, 120))
	}
	var sum checkpoint.Summary
	if err := json.Unmarshal([]byte(s[i:j+1]), &sum); err != nil {
		return nil, fmt.Errorf("parse summary: %w", err)
	}
	if strings.TrimSpace(sum.Intent) == "" && strings.TrimSpace(sum.Outcome) == "" {
		return nil, errors.New("parse summary: the answer has neither intent nor outcome")
	}
	return &sum, nil
}

// Runner runs program name with args, stdin as its standard input, in dir,
// with environment env, and returns its standard output. An exit status
// other than 0 is an error that should carry the program's stderr.
type Runner func(ctx context.Context, name string, args []string, stdin []byte, dir string, env []string) ([]byte, error)

// Summarizer generates summaries by running the agent's own CLI. All fields
// are required.
type Summarizer struct {
	// LookPath finds a program on PATH (exec.LookPath).
	LookPath func(string) (string, error)
	// Run runs it.
	Run Runner
	// Environ is the process environment; GIT_* variables are removed
	// before the agent runs.
	Environ []string
	// TempDir is the agent's working directory (os.TempDir()), so that it
	// does not pick up the repository's own settings or hooks.
	TempDir string
}

// summaryAgent returns the agent that summarizes for agent type t: the
// agent of that type, else (unknown types too) the default agent; nil when
// neither is registered or it has no PromptCLI.
func summaryAgent(t agent.AgentType) agent.PromptCLI {
	a, err := agent.GetByAgentType(t)
	if err != nil {
		a = agent.Default()
	}
	p, _ := a.(agent.PromptCLI)
	return p
}

// Summarize asks the agent of type t to summarize the entries (through
// agent.PromptCLI of the agent of that type, else of the default agent). It
// returns an *AgentNotInstalledError when the agent's program is not on
// PATH (or no registered agent can summarize), and a clear error when the
// program fails or its answer is not a summary.
func (s *Summarizer) Summarize(ctx context.Context, t agent.AgentType, entries []Entry, files []string) (*checkpoint.Summary, error) {
	p := summaryAgent(t)
	if p == nil {
		return nil, &AgentNotInstalledError{Agent: t}
	}
	name, args := p.PromptCommand()
	path, err := s.LookPath(name)
	if err != nil {
		return nil, &AgentNotInstalledError{Agent: t, Program: name}
	}
	var env []string
	for _, kv := range s.Environ {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	dir := s.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	out, err := s.Run(ctx, path, args, []byte(SummaryPrompt(entries, files)), dir, env)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", name, err)
	}
	return ParseSummary(answerText(p, out))
}

// answerText extracts the model's text from the program's output
// (agent.PromptCLI.PromptAnswer); output that is not the agent's JSON
// answer is taken as the text itself.
func answerText(p agent.PromptCLI, out []byte) string {
	if text, ok := p.PromptAnswer(out); ok {
		return text
	}
	return string(out)
}
