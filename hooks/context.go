package hooks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/notes"
)

// MaxContextChars is the most characters the session-start context may
// hold: Claude Code moves a longer additionalContext into a file and shows
// the model only a preview (AGENT-HOOKS.md A5).
const MaxContextChars = 10000

// SessionContext returns the text given to an agent at session start: the
// pinned notes of agentName (notes.RenderInContextBlock) and then the notes
// table (notes.RenderPromptSection), separated by a blank line, within
// limit characters. Pinned notes come first; when the whole does not fit,
// the text is cut at a line boundary and ends with a line saying how many
// notes were left out. "" when the agent has no notes or the notes branch
// does not exist.
func SessionContext(ctx context.Context, repo *gitrepo.Repo, agentName string, now time.Time, limit int) (string, error) {
	store, err := notes.NewStore(ctx, repo, notes.WithAgent(agentName))
	if err != nil {
		return "", err
	}
	all, err := store.List(ctx)
	if err != nil || len(all) == 0 {
		return "", err
	}
	var pinned []notes.Note
	for _, n := range all {
		if n.InContext {
			pinned = append(pinned, n)
		}
	}
	return fitContext(pinned, all, now, limit), nil
}

// fitContext renders pinned notes then the table of all notes, dropping
// whole entries from the end (the table's rows first, then pinned notes)
// until the text and its "left out" line fit in limit characters.
func fitContext(pinned, all []notes.Note, now time.Time, limit int) string {
	render := func(p, rows []notes.Note) string {
		parts := []string{}
		if b := notes.RenderInContextBlock(p); b != "" {
			parts = append(parts, b)
		}
		if t := notes.RenderPromptSectionAt(rows, now); t != "" {
			parts = append(parts, t)
		}
		return strings.Join(parts, "\n")
	}
	p, rows := pinned, all
	for {
		left := len(pinned) - len(p) + len(all) - len(rows)
		text := render(p, rows)
		if left > 0 {
			text += fmt.Sprintf("\n(%d more note entries left out to fit the context limit; use `note_list` to see them all.)\n", left)
		}
		if len([]rune(text)) <= limit || len(p)+len(rows) == 0 {
			if len([]rune(text)) > limit {
				return string([]rune(text)[:limit])
			}
			return text
		}
		if len(rows) > 0 {
			rows = rows[:len(rows)-1]
		} else {
			p = p[:len(p)-1]
		}
	}
}
