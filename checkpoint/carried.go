package checkpoint

import (
	"regexp"
	"strings"
)

// A commit made by rewriting history carries the checkpoints of the
// commits it replaces: `git rebase -i` squash keeps each message as a
// paragraph of its own, `git merge --squash` lists the squashed commits
// under "Squashed commit of the following:" with their messages indented
// by four spaces, and a forge's squash merge concatenates the messages as
// "* subject" paragraphs, their trailers plain or indented. CheckpointOf
// names the link the commit was made with, the only one post-commit
// condenses into; CheckpointsOf names them all, for explain and resume to
// read.

// squashHeader starts the message git merge --squash writes.
const squashHeader = "Squashed commit of the following:"

// carriedLine matches an Entire-Checkpoint line once its indentation is
// removed: the key (any case, as git compares keys), a colon, the value.
var carriedLine = regexp.MustCompile(`^(?i:` + TrailerCheckpoint + `):[ \t]*(\S*)[ \t]*$`)

// CheckpointsOf returns every checkpoint ID commit message msg carries, in
// the order they appear, without duplicates: the Entire-Checkpoint lines
// that start a line anywhere outside "#" comments (the trailer block, and
// the paragraphs a squash put together), and, below a "Squashed commit of
// the following:" line or a "* subject" line, the indented ones. A value
// that is not exactly a checkpoint ID is skipped. CheckpointOf's ID, when
// there is one, is among them.
func CheckpointsOf(msg string) []ID {
	var out []ID
	seen := map[ID]bool{}
	add := func(id ID) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	squashed := false
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(line) == squashHeader || strings.HasPrefix(line, "* ") {
			squashed = true
			continue
		}
		body := strings.TrimLeft(line, " \t")
		if body != line && !squashed {
			continue // an indented line outside a squash: a quotation
		}
		if id, ok := carriedID(body); ok {
			add(id)
		}
	}
	// CheckpointOf also reads a trailer block git would parse with CRs or
	// odd spacing that the line rule above does not.
	if id, ok := CheckpointOf(msg); ok {
		add(id)
	}
	return out
}

// carriedID parses one unindented line as an Entire-Checkpoint line with a
// valid ID.
func carriedID(line string) (ID, bool) {
	m := carriedLine.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	id, err := ParseID(m[1])
	return id, err == nil
}

// Carries reports whether msg carries checkpoint id (see CheckpointsOf).
func Carries(msg string, id ID) bool {
	for _, got := range CheckpointsOf(msg) {
		if got == id {
			return true
		}
	}
	return false
}

// CommentedCheckpoints returns the checkpoint IDs of the "# Entire-
// Checkpoint: <id>" comment lines of msg, in order, without duplicates.
// `git rebase -i` comments out the message of a fixup commit (its trailer
// with it) in the message it prepares for the combined commit.
func CommentedCheckpoints(msg string) []ID {
	var out []ID
	seen := map[ID]bool{}
	for _, line := range strings.Split(msg, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "#")
		if !ok {
			continue
		}
		if id, ok := carriedID(strings.TrimLeft(rest, " \t")); ok && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// AddCheckpointTrailers returns msg with an "Entire-Checkpoint: <id>" line
// for each of ids it does not carry yet (CheckpointsOf), in order: in the
// trailer block, right after the last line that is neither empty nor a "#"
// comment when that line is a trailer below the subject's paragraph, else
// after a blank line there;
// comments after it stay after it. It reports whether it added any.
func AddCheckpointTrailers(msg string, ids []ID) (string, bool) {
	have := map[ID]bool{}
	for _, id := range CheckpointsOf(msg) {
		have[id] = true
	}
	var add []string
	for _, id := range ids {
		if id.Valid() && !have[id] {
			have[id] = true
			add = append(add, TrailerCheckpoint+": "+id.String())
		}
	}
	if len(add) == 0 {
		return msg, false
	}
	lines := strings.Split(msg, "\n")
	content := func(i int) bool { return strings.TrimSpace(lines[i]) != "" && !strings.HasPrefix(lines[i], "#") }
	first, last := -1, -1
	for i := range lines {
		if content(i) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if last < 0 {
		return strings.Join(add, "\n") + "\n" + msg, true
	}
	para := last
	for para > 0 && content(para-1) {
		para--
	}
	// A trailer block is the last paragraph, never the subject's.
	if para == first || !trailerLine.MatchString(strings.TrimSuffix(lines[last], "\r")) {
		add = append([]string{""}, add...)
	}
	out := make([]string, 0, len(lines)+len(add))
	out = append(out, lines[:last+1]...)
	out = append(out, add...)
	out = append(out, lines[last+1:]...)
	res := strings.Join(out, "\n")
	if last == len(lines)-1 {
		res += "\n"
	}
	return res, true
}
