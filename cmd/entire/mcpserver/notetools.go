package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/entirecli/entire/notes"
)

// maxHintKeys is how many stored keys a "no note named" hint lists.
const maxHintKeys = 20

// noteTool serves the note_* tools with the answers models know from them.
func (t *tools) noteTool(ctx context.Context, name string, args map[string]any) (string, bool) {
	st := t.opts.Notes
	if st == nil {
		return "notes are not available", true
	}
	if name == ToolNoteList {
		list, err := st.List(ctx)
		if err != nil {
			return err.Error(), true
		}
		if len(list) == 0 {
			return "No notes stored.\n", false
		}
		return notes.RenderPromptSection(list), false
	}
	key := strings.TrimSpace(stringArg(args, "key"))
	if key == "" {
		example := name + " k8s-cluster"
		if name == ToolNoteSave {
			example += " ..."
		}
		return fmt.Sprintf("key is required (e.g. %s)", example), true
	}
	switch name {
	case ToolNoteSave:
		_, err := st.Get(ctx, key)
		existed := err == nil
		if err := st.Save(ctx, key, stringArg(args, "content"), t.opts.MaxNoteBytes, t.opts.MaxNoteCount); err != nil {
			return err.Error(), true
		}
		if existed {
			return fmt.Sprintf("saved (overwrote prior version of %q)", key), false
		}
		return fmt.Sprintf("saved (new key %q)", key), false
	case ToolNoteShow:
		n, err := st.Get(ctx, key)
		if err != nil {
			return t.missing(ctx, key, err), true
		}
		return n.Content, false
	case ToolNoteDelete:
		if _, err := st.Get(ctx, key); errors.Is(err, notes.ErrNotFound) {
			return fmt.Sprintf("no note named %q (already absent)", key), false
		} else if err != nil {
			return err.Error(), true
		}
		if err := st.Delete(ctx, key); err != nil {
			return err.Error(), true
		}
		return fmt.Sprintf("deleted %q", key), false
	case ToolNotePin, ToolNoteUnpin:
		pin := name == ToolNotePin
		if err := st.SetInContext(ctx, key, pin); err != nil {
			return t.missing(ctx, key, err), true
		}
		if pin {
			return fmt.Sprintf("pinned %q (now in system prompt on every step)", key), false
		}
		return fmt.Sprintf("unpinned %q (no longer in system prompt)", key), false
	}
	return fmt.Sprintf("unknown tool %q", name), true
}

// missing words err for the model: for a missing note, the keys that do
// exist.
func (t *tools) missing(ctx context.Context, key string, err error) string {
	if !errors.Is(err, notes.ErrNotFound) {
		return err.Error()
	}
	list, lerr := t.opts.Notes.List(ctx)
	if lerr != nil || len(list) == 0 {
		return fmt.Sprintf("no note named %q (no notes stored)", key)
	}
	keys := make([]string, 0, maxHintKeys)
	for i, n := range list {
		if i == maxHintKeys {
			break
		}
		keys = append(keys, n.Key)
	}
	msg := fmt.Sprintf("no note named %q; stored: %s", key, strings.Join(keys, ", "))
	if extra := len(list) - maxHintKeys; extra > 0 {
		msg += fmt.Sprintf(" (+%d more \u2014 use note_list to see all)", extra)
	}
	return msg
}
