package agent

import (
	"encoding/json"
	"fmt"

	"github.com/entirecli/entire/internal/jsonedit"
)

// HookEntry is one hook handler an agent wants in its settings file, in the
// common layout of Claude Code and Gemini CLI:
//
//	"hooks": { "<Event>": [ { "matcher": "<Matcher>", "hooks": [ <Handler> ] } ] }
type HookEntry struct {
	// Event is the agent's event name, e.g. "PreToolUse" or "BeforeTool".
	Event string
	// Matcher is the group matcher; "" matches everything.
	Matcher string
	// Command is the handler's command string; it identifies the entry.
	Command string
	// Handler is the complete handler object (compact JSON).
	Handler json.RawMessage
}

// HookEditor edits the `hooks` object of an agent settings file at the text
// level. It touches only handlers whose command IsOurs reports as Entire's,
// and only event values shaped as arrays of matcher groups; anything else
// is kept byte for byte.
type HookEditor struct {
	// IsOurs reports whether a handler command belongs to Entire.
	IsOurs func(command string) bool
	// OmitEmptyMatcher leaves "matcher" out of new groups whose matcher is ""
	// (Gemini); otherwise it is written as "" (Claude Code).
	OmitEmptyMatcher bool
}

// hookRef is one handler found in the file.
type hookRef struct {
	event            string
	group, handler   int
	matcher, command string
}

// scan lists the handlers with a string command in well-formed groups.
func scan(d *jsonedit.Doc) []hookRef {
	var out []hookRef
	if d.Kind("hooks") != '{' {
		return nil
	}
	for _, ev := range d.Keys("hooks") {
		if d.Kind("hooks", ev) != '[' {
			continue
		}
		for g := range d.Len("hooks", ev) {
			if d.Kind("hooks", ev, g) != '{' || d.Kind("hooks", ev, g, "hooks") != '[' {
				continue
			}
			var matcher string
			if raw, ok := d.Get("hooks", ev, g, "matcher"); ok {
				_ = json.Unmarshal(raw, &matcher)
			}
			for h := range d.Len("hooks", ev, g, "hooks") {
				var cmd string
				if raw, ok := d.Get("hooks", ev, g, "hooks", h, "command"); ok && json.Unmarshal(raw, &cmd) == nil {
					out = append(out, hookRef{ev, g, h, matcher, cmd})
				}
			}
		}
	}
	return out
}

// Install makes the file's hooks hold exactly one copy of every entry in
// want and no other Entire handler: Entire handlers not wanted (older
// command forms, matchers) are removed, missing ones appended to the group
// with the same matcher (or a new group at the end, or a new event at the
// end of "hooks"). With force every Entire handler is removed first, so all
// of want is re-added. Groups and event arrays that become empty by a
// removal are dropped. Insertions are recorded in f.Added. It returns the
// number of handlers added.
func (e HookEditor) Install(f *SettingsFile, want []HookEntry, force bool) (int, error) {
	if k := f.Doc.Kind("hooks"); k != 0 && k != '{' && !isNull(f.Doc, jsonedit.Path{"hooks"}) {
		return 0, fmt.Errorf("%s: %w: \"hooks\" is not an object", f.Path, ErrInvalidSettings)
	}
	wanted := map[[3]string]bool{}
	if !force {
		for _, w := range want {
			wanted[[3]string{w.Event, w.Matcher, w.Command}] = true
		}
	}
	present := e.prune(f.Doc, wanted, true)
	added := 0
	for _, w := range want {
		key := [3]string{w.Event, w.Matcher, w.Command}
		if present[key] {
			continue
		}
		if err := e.add(f, w); err != nil {
			return added, err
		}
		present[key] = true
		added++
	}
	return added, nil
}

func (e HookEditor) add(f *SettingsFile, w HookEntry) error {
	if err := f.Ensure('{', "hooks"); err != nil {
		return err
	}
	d := f.Doc
	group := &Object{}
	if w.Matcher != "" || !e.OmitEmptyMatcher {
		group.Set("matcher", MustString(w.Matcher))
	}
	group.Set("hooks", CompactArray([]json.RawMessage{w.Handler}))
	switch d.Kind("hooks", w.Event) {
	case 0:
		return f.Insert([]string{"hooks"}, w.Event, CompactArray([]json.RawMessage{group.Compact()}), false)
	case '[':
	default:
		return fmt.Errorf("add %s hook: %w: hooks.%s is not an array", w.Event, ErrInvalidSettings, w.Event)
	}
	for g := range d.Len("hooks", w.Event) {
		if d.Kind("hooks", w.Event, g) != '{' || d.Kind("hooks", w.Event, g, "hooks") != '[' {
			continue
		}
		var matcher string
		if raw, ok := d.Get("hooks", w.Event, g, "matcher"); ok {
			_ = json.Unmarshal(raw, &matcher)
		}
		if matcher == w.Matcher {
			return d.Append(jsonedit.Path{"hooks", w.Event, g, "hooks"}, w.Handler)
		}
	}
	return d.Append(jsonedit.Path{"hooks", w.Event}, group.Compact())
}

// Remove deletes every Entire handler from every event, dropping the groups
// it empties (and, with dropEvents, the event arrays it empties). It
// returns the number of handlers removed.
func (e HookEditor) Remove(d *jsonedit.Doc, dropEvents bool) int {
	before := len(scan(d))
	e.prune(d, nil, dropEvents)
	return before - len(scan(d))
}

// prune removes Entire handlers that are not in wanted (and duplicates of
// wanted ones), last first so that positions stay valid. It returns the
// wanted entries still present.
func (e HookEditor) prune(d *jsonedit.Doc, wanted map[[3]string]bool, dropEvents bool) map[[3]string]bool {
	present := map[[3]string]bool{}
	refs := scan(d)
	drop := make([]bool, len(refs))
	for i, r := range refs {
		if r.command == "" || !e.IsOurs(r.command) {
			continue
		}
		key := [3]string{r.event, r.matcher, r.command}
		if !wanted[key] || present[key] {
			drop[i] = true
			continue
		}
		present[key] = true
	}
	for i := len(refs) - 1; i >= 0; i-- {
		if !drop[i] {
			continue
		}
		r := refs[i]
		_, _ = d.Remove(jsonedit.Path{"hooks", r.event, r.group, "hooks", r.handler})
		lastOfGroup := i == 0 || refs[i-1].event != r.event || refs[i-1].group != r.group
		if lastOfGroup && d.Len("hooks", r.event, r.group, "hooks") == 0 {
			_, _ = d.Remove(jsonedit.Path{"hooks", r.event, r.group})
		}
		lastOfEvent := i == 0 || refs[i-1].event != r.event
		if dropEvents && lastOfEvent && d.Kind("hooks", r.event) == '[' && d.Len("hooks", r.event) == 0 {
			_, _ = d.Remove(jsonedit.Path{"hooks", r.event})
		}
	}
	return present
}

// Contains reports whether event has a handler with exactly command (under
// any matcher).
func (e HookEditor) Contains(d *jsonedit.Doc, event, command string) bool {
	for _, r := range scan(d) {
		if r.event == event && r.command == command {
			return true
		}
	}
	return false
}

// ContainsOurs reports whether any event has an Entire handler.
func (e HookEditor) ContainsOurs(d *jsonedit.Doc) bool {
	for _, r := range scan(d) {
		if r.command != "" && e.IsOurs(r.command) {
			return true
		}
	}
	return false
}
