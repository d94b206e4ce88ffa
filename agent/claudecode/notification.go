package claudecode

import (
	"html"
	"regexp"
	"strings"

	"github.com/entirecli/entire/agent"
)

var _ agent.TaskNotifier = (*Agent)(nil)

// taskNotificationRe matches the block Claude Code (2.1.332 and later)
// submits as a prompt when a background subagent stops; it may come
// wrapped in a <system-reminder> that says it is no user input.
var taskNotificationRe = regexp.MustCompile(`(?s)<task-notification>(.*?)</task-notification>`)

// notificationField returns the text of <name>…</name> in a notification
// block ("" when absent).
func notificationField(block, name string) string {
	_, rest, ok := strings.Cut(block, "<"+name+">")
	if !ok {
		return ""
	}
	v, _, ok := strings.Cut(rest, "</"+name+">")
	if !ok {
		return ""
	}
	return v
}

// TaskNotification reads a prompt that is a <task-notification> block
// and nothing a person wrote beside it: the Agent call's tool-use-id, the
// status, and the result (whose text Claude Code escapes as HTML).
func (a *Agent) TaskNotification(prompt string) (agent.TaskNotice, bool) {
	m := taskNotificationRe.FindStringSubmatchIndex(prompt)
	if m == nil {
		return agent.TaskNotice{}, false
	}
	// What is left besides the block must be the agent's own wrapping.
	rest := prompt[:m[0]] + prompt[m[1]:]
	if agent.StripIDETags(stripReminderWrap(rest)) != "" {
		return agent.TaskNotice{}, false
	}
	block := prompt[m[2]:m[3]]
	id := strings.TrimSpace(notificationField(block, "tool-use-id"))
	if id == "" {
		return agent.TaskNotice{}, false
	}
	return agent.TaskNotice{
		ToolUseID: id,
		Status:    strings.TrimSpace(notificationField(block, "status")),
		Result:    strings.TrimSpace(html.UnescapeString(notificationField(block, "result"))),
	}, true
}

// stripReminderWrap removes the <system-reminder> tags and the notice
// Claude Code puts around a notification, leaving what else there was.
func stripReminderWrap(s string) string {
	s = strings.ReplaceAll(s, "<system-reminder>", "")
	s = strings.ReplaceAll(s, "</system-reminder>", "")
	if i := strings.Index(s, "[SYSTEM NOTIFICATION"); i >= 0 {
		// The notice is one paragraph.
		end := strings.Index(s[i:], "\n\n")
		if end < 0 {
			return strings.TrimSpace(s[:i])
		}
		s = s[:i] + s[i+end:]
	}
	return strings.TrimSpace(s)
}
