package notes

import (
	"fmt"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/humantime"
)

// RenderPromptSection renders notes, in the given order, as the "## Notes"
// markdown table for an agent's prompt, with update times relative to now.
// Empty input gives "" so that the caller can skip the separator.
func RenderPromptSection(notes []Note) string {
	return RenderPromptSectionAt(notes, time.Now())
}

// RenderPromptSectionAt is RenderPromptSection with an explicit "now":
//
//	## Notes
//
//	| Key | Updated | Preview |
//	|-----|---------|---------|
//	| `k8s-cluster` | 5m ago | homelab cluster, 3 nodes |
//
//	Notes persist across sessions. Use `note_show <key>` for full content; `note_save` / `note_delete` to mutate.
//
// each line ending in "\n". Cells are not padded; "|" in a preview is
// escaped as "\|" and a newline becomes a space.
func RenderPromptSectionAt(notes []Note, now time.Time) string {
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Notes\n\n| Key | Updated | Preview |\n|-----|---------|---------|\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", n.Key, humantime.Ago(n.UpdatedAt, now), escapeCell(n.Preview))
	}
	b.WriteString("\nNotes persist across sessions. Use `note_show <key>` for full content; `note_save` / `note_delete` to mutate.\n")
	return b.String()
}

// RenderInContextBlock renders pinned notes as the "## Pinned notes" block:
// a header paragraph, then for each note "\n### <key>\n\n<trimmed content>\n".
// Empty input gives "".
func RenderInContextBlock(pinned []Note) string {
	if len(pinned) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Pinned notes\n\nThese notes are integrated into your system prompt because they were flagged in-context. " +
		"Use `note_unpin <key>` to remove from this block (the underlying note stays saved).\n")
	for _, n := range pinned {
		fmt.Fprintf(&b, "\n### %s\n\n%s\n", n.Key, strings.TrimSpace(n.Content))
	}
	return b.String()
}

func escapeCell(s string) string {
	return strings.NewReplacer("\n", " ", "|", `\|`).Replace(s)
}
