package strategy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/entirecli/entire/agent"
)

// defaultSubject is the commit subject used when there is no prompt, for
// every agent (SPEC: "Claude Code session updates", the default agent's
// label).
const defaultSubject = string(agent.DefaultAgentType) + " session updates"

var politePrefixes = []string{
	"Can you ", "can you ", "Please ", "please ", "Let's ", "let's ", "Could you ", "could you ",
	"Would you ", "would you ", "I want you to ", "I'd like you to ", "I need you to ",
}

// CommitSubject derives a shadow-commit subject from the last prompt (SPEC
// 4.8): polite prefixes stripped repeatedly, a trailing "?" dropped, cut to
// 72 runes, first rune upper-cased; "Claude Code session updates" when
// nothing is left.
func CommitSubject(prompt string) string {
	s := strings.TrimSpace(agent.StripIDETags(prompt))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	for changed := true; changed; {
		changed = false
		for _, p := range politePrefixes {
			if strings.HasPrefix(s, p) {
				s = strings.TrimSpace(strings.TrimPrefix(s, p))
				changed = true
			}
		}
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, "?"))
	if utf8.RuneCountInString(s) > 72 {
		s = string([]rune(s)[:72])
	}
	if s == "" {
		return defaultSubject
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// firstPrompt is the session's first prompt as kept in its state:
// whitespace collapsed, at most 100 runes followed by "...".
func firstPrompt(prompt string) string {
	s := strings.Join(strings.Fields(agent.StripIDETags(prompt)), " ")
	if utf8.RuneCountInString(s) > 100 {
		return string([]rune(s)[:100]) + "..."
	}
	return s
}

// ShortPrompt is a prompt as shown on one line (a session's first prompt,
// the question of a LinkConfirmer): IDE tags dropped, whitespace
// collapsed, at most 100 runes followed by "...".
func ShortPrompt(prompt string) string { return firstPrompt(prompt) }

// promptSeparator joins prompts in prompt.txt.
const promptSeparator = "\n\n---\n\n"

// joinPrompts formats prompt.txt.
func joinPrompts(prompts []string) string { return strings.Join(prompts, promptSeparator) }

// splitPrompts parses prompt.txt.
func splitPrompts(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, promptSeparator)
}

// stepContext renders the context.md of a shadow step (SPEC 4.8, without
// the original's double dash in Key Actions).
func stepContext(sessionID, subject string, prompts []string, summary string, tools []agent.ToolUse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Session Context\n\n**Session ID:** %s\n\n**Commit Message:** %s\n\n", sessionID, subject)
	b.WriteString("## Prompt\n\n" + joinPrompts(prompts) + "\n\n")
	b.WriteString("## Summary\n\n" + summary + "\n")
	if len(tools) > 0 {
		b.WriteString("\n## Key Actions\n\n")
		for i, t := range tools {
			if i == 10 {
				break
			}
			if t.Detail != "" {
				fmt.Fprintf(&b, "- **%s**: %s\n", t.Name, t.Detail)
			} else {
				fmt.Fprintf(&b, "- **%s**\n", t.Name)
			}
		}
	}
	return b.String()
}

// condensedContext renders the context.md of a committed checkpoint: every
// prompt of its scope, each cut to 500 bytes (SPEC 4.8).
func condensedContext(prompts []string) string {
	var b strings.Builder
	b.WriteString("# Session Context\n\n## User Prompts\n")
	for i, p := range prompts {
		if len(p) > 500 {
			cut := 500
			for cut > 0 && !utf8.RuneStart(p[cut]) {
				cut--
			}
			p = p[:cut] + "..."
		}
		fmt.Fprintf(&b, "\n### Prompt %d\n\n%s\n", i+1, p)
	}
	return b.String()
}
