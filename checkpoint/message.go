package checkpoint

import (
	"strings"
	"unicode/utf8"
)

// AppendCheckpointTrailer adds "Entire-Checkpoint: <id>" to a commit message
// given with -m or -F (SPEC 3.9): on the line after the last non-empty,
// non-comment line when that line already looks like a trailer (contains
// ": "), else after a blank line. The result ends with a newline. A message
// that already links to a checkpoint is returned unchanged.
func AppendCheckpointTrailer(msg string, id ID) string {
	if _, ok := CheckpointOf(msg); ok {
		return msg
	}
	trailer := TrailerCheckpoint + ": " + id.String() + "\n"
	body := strings.TrimRight(msg, " \t\r\n")
	if body == "" {
		return trailer
	}
	last := ""
	for _, l := range strings.Split(body, "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			last = l
		}
	}
	if strings.Contains(last, ": ") {
		return body + "\n" + trailer
	}
	return body + "\n\n" + trailer
}

// InsertCheckpointTrailerForEditor adds the trailer for the editor flow of
// `git commit` (SPEC 3.9): after the user's content and before git's "#"
// comment block, followed by comment lines explaining how to unlink the
// commit. agentType is the agent's label ("Claude Code"); lastPrompt, when
// not empty, is shown collapsed to at most 80 runes. With no content yet, the
// message starts with two newlines so the user types above the trailer.
func InsertCheckpointTrailerForEditor(msg string, id ID, agentType, lastPrompt string) string {
	if _, ok := CheckpointOf(msg); ok {
		return msg
	}
	lines := strings.Split(msg, "\n")
	cut := len(lines)
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			cut = i
			break
		}
	}
	content := strings.TrimRight(strings.Join(lines[:cut], "\n"), " \t\r\n")
	comments := strings.Join(lines[cut:], "\n")

	var b strings.Builder
	if content == "" {
		b.WriteString("\n\n")
	} else {
		b.WriteString(content)
		b.WriteString("\n\n")
	}
	b.WriteString(TrailerCheckpoint + ": " + id.String() + "\n")
	b.WriteString("# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to " + agentType + " session context.\n")
	if p := collapse(lastPrompt, 80); p != "" {
		b.WriteString("# Last Prompt: " + p + "\n")
	}
	b.WriteString("# The trailer will be added to your next commit based on this branch.\n")
	if comments != "" {
		b.WriteString("\n")
		b.WriteString(comments)
	}
	return b.String()
}

// StripLoneCheckpointTrailer implements the commit-msg rule of SPEC 3.9:
// when the message holds an Entire-Checkpoint trailer and no other
// non-comment, non-empty line, the trailer line is removed so that git
// aborts the empty commit. It reports whether it changed msg.
func StripLoneCheckpointTrailer(msg string) (string, bool) {
	lines := strings.Split(msg, "\n")
	trailerAt := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if m := trailerLine.FindStringSubmatch(l); m != nil && strings.EqualFold(m[1], TrailerCheckpoint) && trailerAt < 0 {
			trailerAt = i
			continue
		}
		return msg, false
	}
	if trailerAt < 0 {
		return msg, false
	}
	out := append(lines[:trailerAt:trailerAt], lines[trailerAt+1:]...)
	return strings.Join(out, "\n"), true
}

// collapse folds runs of white space into one space, trims, and cuts the
// result to max runes followed by "..." when it was longer.
func collapse(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "..."
}
