package agent

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Tag patterns stripped from prompts (SPEC 4.8). Compiled once; regexps are
// safe for concurrent use.
var (
	ideTagRe    = regexp.MustCompile(`(?s)<ide_[A-Za-z0-9_-]*>.*?</ide_[A-Za-z0-9_-]*>`)
	systemTagRe = regexp.MustCompile(`(?s)<(local-command-caveat|system-reminder|command-name|command-message|command-args|local-command-stdout|task-notification)>.*?</(?:local-command-caveat|system-reminder|command-name|command-message|command-args|local-command-stdout|task-notification)>`)
)

// StripIDETags removes IDE context blocks (<ide_…>…</ide_…>) and the
// system/command blocks Claude Code injects into user messages
// (<local-command-caveat>, <system-reminder>, <command-name>,
// <command-message>, <command-args>, <local-command-stdout>, and the
// <task-notification> that hands a background subagent's result to the
// main agent), then trims
// surrounding space. A prompt that was only such blocks becomes "".
func StripIDETags(s string) string {
	if !strings.Contains(s, "<") {
		return strings.TrimSpace(s)
	}
	s = ideTagRe.ReplaceAllString(s, "")
	s = systemTagRe.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// contentBlock is the part of a message content block that text extraction
// needs (Claude blocks and Gemini Parts alike).
type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// MessageText returns the text of a message `content` value: the string
// itself, or the `text` of the array's text blocks (type "text", or Gemini
// Parts without a type) joined by blank lines. Other blocks (tool_use,
// tool_result, images, functionResponse) are ignored; malformed content gives
// "".
func MessageText(content json.RawMessage) string {
	if len(content) == 0 {
		return ""
	}
	switch content[0] {
	case '"':
		var s string
		if json.Unmarshal(content, &s) != nil {
			return ""
		}
		return s
	case '[':
		var blocks []contentBlock
		if json.Unmarshal(content, &blocks) != nil {
			return ""
		}
		var texts []string
		for _, b := range blocks {
			if (b.Type == "text" || b.Type == "") && b.Text != "" {
				texts = append(texts, b.Text)
			}
		}
		return strings.Join(texts, "\n\n")
	}
	return ""
}

// IsNoisePrompt reports whether an (already tag-stripped) user text is not a
// human prompt: empty, or an interruption marker Claude Code writes as a user
// message.
func IsNoisePrompt(s string) bool {
	return s == "" || strings.HasPrefix(s, "[Request interrupted by user")
}

var (
	commandNameRe = regexp.MustCompile(`(?s)<command-name>(.*?)</command-name>`)
	commandArgsRe = regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
)

// builtinCommands are Claude Code slash commands that manage the session
// rather than ask the agent something; they are not prompts.
var builtinCommands = map[string]bool{
	"/exit": true, "/quit": true, "/ide": true, "/clear": true, "/compact": true, "/mcp": true,
	"/resume": true, "/model": true, "/config": true, "/cost": true, "/help": true, "/status": true,
	"/login": true, "/logout": true, "/doctor": true, "/permissions": true, "/hooks": true,
	"/memory": true, "/vim": true, "/terminal-setup": true, "/context": true, "/usage": true,
	"/agents": true, "/add-dir": true, "/bashes": true, "/export": true, "/rewind": true,
	"/statusline": true, "/todos": true, "/plugin": true, "/output-style": true,
}

// PromptText turns the text of a user message into the human prompt it
// represents, or "" if it is none: IDE/system tags are stripped
// (StripIDETags); a message that was only a slash command becomes
// "/command args" unless the command is a built-in session command (/clear,
// /exit, /compact, ...); interruption markers are dropped.
func PromptText(text string) string {
	s := StripIDETags(text)
	if s == "" {
		if m := commandNameRe.FindStringSubmatch(text); m != nil {
			name := strings.TrimSpace(m[1])
			if name != "" && !builtinCommands[name] {
				s = name
				if a := commandArgsRe.FindStringSubmatch(text); a != nil && strings.TrimSpace(a[1]) != "" {
					s += " " + strings.TrimSpace(a[1])
				}
			}
		}
	}
	if IsNoisePrompt(s) {
		return ""
	}
	return s
}
