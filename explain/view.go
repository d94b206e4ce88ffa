package explain

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
)

// Mode selects how much of a checkpoint RenderCheckpoint shows.
type Mode int

// Modes of the checkpoint view.
const (
	// ModeDefault shows the header, summary details, prompts, files and the
	// transcript of the checkpoint's scope.
	ModeDefault Mode = iota
	// ModeShort shows the header only (--short).
	ModeShort
	// ModeFull is ModeDefault with the whole session transcript (--full).
	ModeFull
)

// Commit is a user commit linked to a checkpoint.
type Commit struct {
	SHA     string
	Date    time.Time
	Subject string
}

// SessionView is one session of a checkpoint, as the view shows it.
type SessionView struct {
	ID    string
	Agent agent.AgentType
	// Prompts are the prompts of the checkpoint's scope, oldest first.
	Prompts []string
	// Transcript is the condensed transcript to show (scope or full,
	// according to the mode the caller parsed it for).
	Transcript []Entry
	// Tokens is the session's token usage (nil: not recorded).
	Tokens *agent.TokenUsage
	// ToolUseID is the whole tool use ID of the subagent task the
	// checkpoint records ("" when it is not a task checkpoint); commit
	// subjects show only its first 12 characters.
	ToolUseID string
	// MissingObjects are the hashes of the stored transcript's objects
	// that are not in this repository (a partial clone): the transcript
	// cannot be shown until they are fetched.
	MissingObjects []string
}

// CheckpointView is everything the checkpoint view of `entire explain`
// shows. Zero fields are left out or shown as "(none)" as documented on
// RenderCheckpoint.
type CheckpointView struct {
	// ID is the checkpoint ID, or the shadow commit hash of a temporary
	// checkpoint.
	ID        string
	Temporary bool
	Created   time.Time
	// Author is "name <email>" of the metadata commit that introduced the
	// checkpoint ("" when unknown).
	Author string
	// Sessions are the checkpoint's sessions, oldest slot first; the last
	// one is the latest.
	Sessions []SessionView
	// Tokens is the checkpoint's total usage (nil: not recorded).
	Tokens *agent.TokenUsage
	// Commits are the linked user commits, newest first; CommitsSearched
	// says whether they were looked for at all (temporary checkpoints have
	// none).
	Commits         []Commit
	CommitsSearched bool
	// SearchedAll says the commits were looked for in every branch.
	SearchedAll bool
	// FetchRemote is the remote named in the fetch command of a missing
	// transcript ("" means origin).
	FetchRemote string
	// Summary is the AI summary of the latest session (nil: not generated).
	Summary     *checkpoint.Summary
	Files       []string
	Attribution *checkpoint.Attribution
}

// TotalTokens is the token count explain shows (SPEC 1.9): input + cache
// creation + cache read + output. Subagent usage is not included; the view
// shows it apart.
func TotalTokens(u *agent.TokenUsage) int {
	if u == nil {
		return 0
	}
	return u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens + u.OutputTokens
}

// RenderCheckpoint writes the checkpoint view (SPEC 1.9):
//
//	Checkpoint: <id> [temporary]
//	Session: <id> (<agent>)        or Sessions: (n) with one line each
//	Task: <tool use id>            (task checkpoints; ", task <id>" on a session line)
//	Created: YYYY-MM-DD HH:MM:SS   (UTC)
//	Author: name <email>
//	Tokens: <total> (input …, output …, …)
//	Attribution: 73.0% agent (146 of 200 committed lines; human +4 ~1 -2)
//	Commits: (n)                   then "  sha7 YYYY-MM-DD subject" lines
//	Intent: …
//	Outcome: …
//
// Intent and Outcome come from the summary, else the first prompt (≤80
// runes) and "(not generated)". ModeShort stops there; the other modes add
// the summary details (Learnings, Friction, Open Items), Prompts, Files and
// the transcript of every session, titled "Transcript (checkpoint scope):"
// or, in ModeFull, "Transcript (full session):".
func RenderCheckpoint(w io.Writer, v *CheckpointView, mode Mode) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	if v.Temporary {
		p("Checkpoint: %s [temporary]\n", v.ID)
	} else {
		p("Checkpoint: %s\n", v.ID)
	}
	switch len(v.Sessions) {
	case 0:
	case 1:
		p("Session: %s%s\n", v.Sessions[0].ID, agentSuffix(v.Sessions[0].Agent))
		if id := v.Sessions[0].ToolUseID; id != "" {
			p("Task: %s\n", id)
		}
	default:
		p("Sessions: (%d)\n", len(v.Sessions))
		for _, s := range v.Sessions {
			task := ""
			if s.ToolUseID != "" {
				task = ", task " + s.ToolUseID
			}
			p("  %s%s%s\n", s.ID, agentSuffix(s.Agent), task)
		}
	}
	if !v.Created.IsZero() {
		p("Created: %s\n", v.Created.UTC().Format("2006-01-02 15:04:05"))
	}
	if v.Author != "" {
		p("Author: %s\n", v.Author)
	}
	p("Tokens: %s\n", tokenLine(v.Tokens))
	if a := v.Attribution; a != nil {
		p("Attribution: %.1f%% agent (%d of %d committed lines; human +%d ~%d -%d)\n",
			a.AgentPercentage, a.AgentLines, a.TotalCommitted, a.HumanAdded, a.HumanModified, a.HumanRemoved)
	}
	if v.CommitsSearched {
		if len(v.Commits) == 0 {
			if v.SearchedAll {
				p("Commits: No commits found in any branch\n")
			} else {
				p("Commits: No commits found on this branch (--search-all looks in every branch)\n")
			}
		} else {
			p("Commits: (%d)\n", len(v.Commits))
			for _, c := range v.Commits {
				p("  %s %s %s\n", short7(c.SHA), c.Date.Format("2006-01-02"), c.Subject)
			}
		}
	}
	intent, outcome := "(no prompt)", "(not generated)"
	if v.Summary != nil {
		intent, outcome = orNone(v.Summary.Intent), orNone(v.Summary.Outcome)
	} else if pr := firstPrompt(v.Sessions); pr != "" {
		intent = Truncate(pr, 80)
	}
	p("Intent: %s\n", intent)
	p("Outcome: %s\n", outcome)
	if mode != ModeShort {
		writeDetails(&b, v, mode)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDetails writes the parts of the verbose view below the header.
func writeDetails(b *strings.Builder, v *CheckpointView, mode Mode) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	if s := v.Summary; s != nil {
		if len(s.Learnings.Repo)+len(s.Learnings.Code)+len(s.Learnings.Workflow) > 0 {
			p("\nLearnings:\n")
			list(b, "  Repository:", "    - ", s.Learnings.Repo)
			if len(s.Learnings.Code) > 0 {
				p("  Code:\n")
				for _, c := range s.Learnings.Code {
					p("    - %s: %s\n", codePlace(c), c.Finding)
				}
			}
			list(b, "  Workflow:", "    - ", s.Learnings.Workflow)
		}
		if len(s.Friction) > 0 {
			b.WriteByte('\n')
			list(b, "Friction:", "  - ", s.Friction)
		}
		if len(s.OpenItems) > 0 {
			b.WriteByte('\n')
			list(b, "Open Items:", "  - ", s.OpenItems)
		}
	}
	var prompts []string
	for _, s := range v.Sessions {
		prompts = append(prompts, s.Prompts...)
	}
	p("\nPrompts: (%d)\n", len(prompts))
	for i, pr := range prompts {
		p("  %d. %s\n", i+1, Truncate(pr, 200))
	}
	p("\nFiles: (%d)\n", len(v.Files))
	for _, f := range v.Files {
		p("  - %s\n", f)
	}
	title := "Transcript (checkpoint scope):"
	if mode == ModeFull {
		title = "Transcript (full session):"
	}
	for _, s := range v.Sessions {
		b.WriteByte('\n')
		if len(v.Sessions) > 1 {
			p("%s session %s\n", strings.TrimSuffix(title, ":"), s.ID)
		} else {
			p("%s\n", title)
		}
		if len(s.MissingObjects) > 0 {
			writeMissing(b, v.FetchRemote, s.MissingObjects)
			continue
		}
		if len(s.Transcript) == 0 {
			p("(empty)\n")
			continue
		}
		_ = WriteTranscript(b, s.Transcript) // a strings.Builder does not fail
	}
}

// writeMissing says that a transcript's objects are not here and how to
// fetch them.
func writeMissing(b *strings.Builder, remote string, objects []string) {
	short := make([]string, len(objects))
	for i, o := range objects {
		short[i] = o[:min(12, len(o))]
	}
	if len(objects) == 1 {
		fmt.Fprintf(b, "(not available here: the transcript's object %s is missing from this repository, as in a partial clone)\nTo fetch it, run:\n", short[0])
	} else {
		fmt.Fprintf(b, "(not available here: the transcript's objects %s are missing from this repository, as in a partial clone)\nTo fetch them, run:\n", strings.Join(short, ", "))
	}
	fmt.Fprintf(b, "  %s\n", fetchCommand(remote, objects))
}

func list(b *strings.Builder, title, bullet string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, it := range items {
		b.WriteString(bullet + it + "\n")
	}
}

func codePlace(c checkpoint.CodeLearning) string {
	switch {
	case c.Line > 0 && c.EndLine > c.Line:
		return fmt.Sprintf("%s:%d-%d", c.Path, c.Line, c.EndLine)
	case c.Line > 0:
		return fmt.Sprintf("%s:%d", c.Path, c.Line)
	}
	return c.Path
}

func tokenLine(u *agent.TokenUsage) string {
	if u == nil {
		return "not recorded"
	}
	s := fmt.Sprintf("%d (input %d, cache write %d, cache read %d, output %d; %d API calls",
		TotalTokens(u), u.InputTokens, u.CacheCreationTokens, u.CacheReadTokens, u.OutputTokens, u.APICallCount)
	if sub := u.SubagentTokens; sub != nil && !sub.IsZero() {
		s += fmt.Sprintf("; subagents %d", TotalTokens(sub))
		if sub.APICallCount > 0 {
			s += fmt.Sprintf(" in %d API calls", sub.APICallCount)
		}
	}
	return s + ")"
}

func agentSuffix(t agent.AgentType) string {
	if t == "" {
		return ""
	}
	return " (" + string(t) + ")"
}

func firstPrompt(ss []SessionView) string {
	for i := len(ss) - 1; i >= 0; i-- {
		if len(ss[i].Prompts) > 0 {
			return ss[i].Prompts[0]
		}
	}
	return ""
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return s
}

func short7(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}
