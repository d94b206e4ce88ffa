package agent

import (
	"encoding/json"
	"fmt"
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

// HookEditor edits the `hooks` object of an agent settings file. It touches
// only handlers whose command IsOurs reports as Entire's, and only event
// values shaped as arrays of matcher groups; anything else is kept verbatim.
type HookEditor struct {
	// IsOurs reports whether a handler command belongs to Entire.
	IsOurs func(command string) bool
	// OmitEmptyMatcher leaves "matcher" out of new groups whose matcher is ""
	// (Gemini); otherwise it is written as "" (Claude Code).
	OmitEmptyMatcher bool
}

// hookGroup is one parsed matcher group.
type hookGroup struct {
	obj      *Object
	matcher  string
	handlers []json.RawMessage
	commands []string // "" for handlers without a string command
	ok       bool     // false: not a well-formed group, kept verbatim
	raw      json.RawMessage
}

func parseGroups(raw json.RawMessage) ([]hookGroup, bool) {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil, false
	}
	groups := make([]hookGroup, len(elems))
	for i, el := range elems {
		g := hookGroup{raw: el}
		obj, err := ParseObject(el)
		if err == nil {
			g.obj = obj
			if m, ok := obj.Get("matcher"); ok {
				_ = json.Unmarshal(m, &g.matcher)
			}
			if h, ok := obj.Get("hooks"); ok && json.Unmarshal(h, &g.handlers) == nil {
				g.ok = true
				g.commands = make([]string, len(g.handlers))
				for j, hd := range g.handlers {
					var c struct {
						Command string `json:"command"`
					}
					if json.Unmarshal(hd, &c) == nil {
						g.commands[j] = c.Command
					}
				}
			}
		}
		groups[i] = g
	}
	return groups, true
}

func encodeGroups(groups []hookGroup) json.RawMessage {
	elems := make([]json.RawMessage, 0, len(groups))
	for _, g := range groups {
		if g.ok {
			g.obj.Set("hooks", CompactArray(g.handlers))
			elems = append(elems, g.obj.Compact())
			continue
		}
		elems = append(elems, g.raw)
	}
	return CompactArray(elems)
}

// Install makes hooks hold exactly one copy of every entry in want and no
// other Entire handler: Entire handlers not wanted (older command forms,
// matchers) are removed, missing ones appended to the group with the same
// matcher (or a new group at the end). With force every Entire handler is
// removed first, so all of want is re-added. Groups and event arrays that
// become empty by a removal are dropped. It returns the number of handlers
// added.
func (e HookEditor) Install(hooks *Object, want []HookEntry, force bool) (int, error) {
	wanted := map[[3]string]bool{}
	if !force {
		for _, w := range want {
			wanted[[3]string{w.Event, w.Matcher, w.Command}] = true
		}
	}
	present, _ := e.prune(hooks, wanted)
	added := 0
	for _, w := range want {
		key := [3]string{w.Event, w.Matcher, w.Command}
		if present[key] {
			continue
		}
		if err := e.add(hooks, w); err != nil {
			return added, err
		}
		present[key] = true
		added++
	}
	return added, nil
}

func (e HookEditor) add(hooks *Object, w HookEntry) error {
	var groups []hookGroup
	if raw, ok := hooks.Get(w.Event); ok {
		var parsed bool
		groups, parsed = parseGroups(raw)
		if !parsed {
			return fmt.Errorf("add %s hook: %w: hooks.%s is not an array", w.Event, ErrInvalidSettings, w.Event)
		}
	}
	for i := range groups {
		if groups[i].ok && groups[i].matcher == w.Matcher {
			groups[i].handlers = append(groups[i].handlers, w.Handler)
			groups[i].commands = append(groups[i].commands, w.Command)
			hooks.Set(w.Event, encodeGroups(groups))
			return nil
		}
	}
	obj := &Object{}
	if w.Matcher != "" || !e.OmitEmptyMatcher {
		obj.Set("matcher", MustString(w.Matcher))
	}
	groups = append(groups, hookGroup{obj: obj, matcher: w.Matcher, ok: true,
		handlers: []json.RawMessage{w.Handler}, commands: []string{w.Command}})
	hooks.Set(w.Event, encodeGroups(groups))
	return nil
}

// Remove deletes every Entire handler from every event, dropping groups and
// event arrays it empties. It returns the number of handlers removed.
func (e HookEditor) Remove(hooks *Object) int {
	_, removed := e.prune(hooks, nil)
	return removed
}

// prune removes Entire handlers that are not in wanted (and duplicates of
// wanted ones). It returns the wanted entries still present and the number of
// handlers removed.
func (e HookEditor) prune(hooks *Object, wanted map[[3]string]bool) (map[[3]string]bool, int) {
	present := map[[3]string]bool{}
	removed := 0
	for _, event := range hooks.Keys() {
		raw, _ := hooks.Get(event)
		groups, ok := parseGroups(raw)
		if !ok {
			continue
		}
		changed := false
		kept := groups[:0]
		for _, g := range groups {
			if !g.ok {
				kept = append(kept, g)
				continue
			}
			var hs []json.RawMessage
			var cs []string
			for j, c := range g.commands {
				key := [3]string{event, g.matcher, c}
				if c != "" && e.IsOurs(c) {
					if !wanted[key] || present[key] {
						changed = true
						removed++
						continue
					}
					present[key] = true
				}
				hs = append(hs, g.handlers[j])
				cs = append(cs, c)
			}
			if len(hs) == 0 && len(g.handlers) > 0 {
				continue // emptied by us
			}
			g.handlers, g.commands = hs, cs
			kept = append(kept, g)
		}
		if !changed {
			continue
		}
		if len(kept) == 0 {
			hooks.Delete(event)
			continue
		}
		hooks.Set(event, encodeGroups(kept))
	}
	return present, removed
}

// Contains reports whether event has a handler with exactly command (under
// any matcher).
func (e HookEditor) Contains(hooks *Object, event, command string) bool {
	raw, ok := hooks.Get(event)
	if !ok {
		return false
	}
	groups, _ := parseGroups(raw)
	for _, g := range groups {
		for _, c := range g.commands {
			if c == command {
				return true
			}
		}
	}
	return false
}

// ContainsOurs reports whether any event has an Entire handler.
func (e HookEditor) ContainsOurs(hooks *Object) bool {
	for _, event := range hooks.Keys() {
		raw, _ := hooks.Get(event)
		groups, _ := parseGroups(raw)
		for _, g := range groups {
			for _, c := range g.commands {
				if c != "" && e.IsOurs(c) {
					return true
				}
			}
		}
	}
	return false
}
