package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/hide"
)

// Claude Code replaces the result of every tool with a PostToolUse hook's
// hookSpecificOutput.updatedToolOutput since this version (AGENT-HOOKS.md
// A5); older versions keep the original result.
var minUpdatedOutputVersion = [3]int{2, 1, 121}

// ownToolPrefixes name the tools of our own MCP server (Claude Code
// mcp__<server>__<tool>, Gemini CLI mcp_<server>_<tool> and, before 0.34,
// <server>__<tool>): their results are pages already and are never hidden.
var ownToolPrefixes = []string{"mcp__entire__", "mcp_entire_", "entire__"}

// hidePlan is how one tool result is hidden: the text stored as the hide
// and how to build the result the agent sees instead.
type hidePlan struct {
	text string
	// replace returns the tool result with page (a Cut envelope) in place
	// of the hidden text, in the tool's own output shape.
	replace func(page string) any
}

// postTool handles Claude Code's post-tool and Gemini CLI's after-tool: a
// tool result whose largest text is over the hide threshold is stored as a
// hide of the session and the agent gets page 1 in its place. Below the
// threshold it returns (nil, nil) after a length check.
func (h *agentHook) postTool() (map[string]any, error) {
	threshold := h.senv.Settings.HideThresholdBytes()
	if len(h.in.ToolResponse) <= threshold || isOwnTool(h.in.ToolName) {
		return nil, nil
	}
	var plan *hidePlan
	if h.gemini {
		plan = planGemini(h.in.ToolResponse, threshold)
	} else {
		plan = planClaude(h.in.ToolResponse, threshold, strings.HasPrefix(h.in.ToolName, "mcp__"))
	}
	if plan == nil {
		return nil, nil
	}
	store := hide.NewStore(h.senv.Repo, hide.WithRedact(h.senv.Redactor.Text), hide.WithClock(h.env.Now))
	source := h.in.ToolName
	if source == "" {
		source = "tool"
	}
	entry, err := store.Put("", source, []byte(plan.text), map[string]string{hide.MetaSessionID: h.in.SessionID})
	if err != nil {
		return nil, fmt.Errorf("store hide: %w", err)
	}
	cut, err := store.Cut(entry.ID, 1, 0)
	if err != nil {
		return nil, fmt.Errorf("read hide %s: %w", entry.ID, err)
	}
	page := cut.Format()
	h.senv.Log.Info("tool output hidden", "session_id", h.in.SessionID, "tool", h.in.ToolName,
		"hide_id", entry.ID, "bytes", entry.SizeBytes, "pages", cut.TotalPages)
	if h.gemini {
		// AfterTool: a deny makes the model receive reason instead of the
		// real result (AGENT-HOOKS.md B5).
		return map[string]any{"decision": "deny", "reason": page}, nil
	}
	note := fmt.Sprintf("Entire stored this %s output (%d bytes, %d pages) as hide %s. "+
		"Read the other pages with the hide_next, hide_jump and hide_search tools (hide_id %q).",
		h.in.ToolName, entry.SizeBytes, cut.TotalPages, entry.ID, entry.ID)
	out := map[string]any{"hookEventName": "PostToolUse"}
	mcpTool := strings.HasPrefix(h.in.ToolName, "mcp__")
	switch version, known := claudeVersion(h.in.SessionRef); {
	case known && versionLess(version, minUpdatedOutputVersion) && mcpTool:
		// Before 2.1.121 only MCP results could be replaced, with the
		// legacy field.
		out["updatedMCPToolOutput"] = plan.replace(page)
	case known && versionLess(version, minUpdatedOutputVersion):
		out["additionalContext"] = note + fmt.Sprintf(" This Claude Code version (%d.%d.%d) cannot replace tool output, "+
			"so the full output above is unchanged; prefer the hide tools when you need it again.", version[0], version[1], version[2])
	case known:
		out["updatedToolOutput"] = plan.replace(page)
	default:
		// Version unknown: replace (ignored by versions that cannot) and
		// say where the output went either way.
		out["updatedToolOutput"] = plan.replace(page)
		out["additionalContext"] = note
	}
	return map[string]any{"hookSpecificOutput": out}, nil
}

func isOwnTool(name string) bool {
	for _, p := range ownToolPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// planGemini plans the hiding of an AfterTool tool_response
// ({llmContent, returnDisplay, error}): the text the model would receive
// (llmContent as a string, or the text of its parts). Nil when that text
// is not over threshold.
func planGemini(raw []byte, threshold int) *hidePlan {
	var resp struct {
		LLMContent json.RawMessage `json:"llmContent"`
	}
	if json.Unmarshal(raw, &resp) != nil || len(resp.LLMContent) == 0 {
		return nil
	}
	v, err := decodeJSON(resp.LLMContent)
	if err != nil {
		return nil
	}
	var parts []string
	collectText(v, &parts)
	text := strings.Join(parts, "\n")
	if len(text) <= threshold {
		return nil
	}
	return &hidePlan{text: text, replace: func(page string) any { return page }}
}

// planClaude plans the hiding of a PostToolUse tool_response so that the
// replacement keeps the tool's output schema: a string result becomes the
// page; otherwise the largest text unit (a string field, or an array of
// strings joined by newlines) over threshold is hidden and replaced in place
// (an array by a one-element array). For MCP tools, whose output is not
// validated, content blocks whose texts together pass threshold are hidden
// together and replaced by one text block. Nil when nothing qualifies.
func planClaude(raw []byte, threshold int, mcp bool) *hidePlan {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil
	}
	if s, ok := v.(string); ok {
		if len(s) <= threshold {
			return nil
		}
		return &hidePlan{text: s, replace: func(page string) any { return page }}
	}
	best := largestUnit(v)
	if best != nil && len(best.text) > threshold {
		return &hidePlan{text: best.text, replace: func(page string) any {
			best.set(page)
			return v
		}}
	}
	if mcp {
		var parts []string
		collectText(v, &parts)
		if text := strings.Join(parts, "\n"); len(text) > threshold {
			return &hidePlan{text: text, replace: func(page string) any {
				return []any{map[string]any{"type": "text", "text": page}}
			}}
		}
	}
	return nil
}

// textUnit is a string field or an array of strings inside a decoded JSON
// value, with a setter that replaces it.
type textUnit struct {
	text string
	set  func(page string)
}

// largestUnit returns the largest text unit of v (nil when v has none).
func largestUnit(v any) *textUnit {
	var best *textUnit
	consider := func(u *textUnit) {
		if best == nil || len(u.text) > len(best.text) {
			best = u
		}
	}
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch t := v.(type) {
		case string:
			consider(&textUnit{text: t, set: func(p string) { set(p) }})
		case map[string]any:
			for k, c := range t {
				walk(c, func(n any) { t[k] = n })
			}
		case []any:
			if strs, ok := allStrings(t); ok && len(strs) > 1 {
				consider(&textUnit{text: strings.Join(strs, "\n"), set: func(p string) { set([]any{p}) }})
				return
			}
			for i, c := range t {
				walk(c, func(n any) { t[i] = n })
			}
		}
	}
	walk(v, func(any) {})
	return best
}

func allStrings(a []any) ([]string, bool) {
	out := make([]string, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// collectText appends the text of v: a string, the "text" members of
// content blocks and parts, recursively through arrays.
func collectText(v any, out *[]string) {
	switch t := v.(type) {
	case string:
		*out = append(*out, t)
	case []any:
		for _, e := range t {
			collectText(e, out)
		}
	case map[string]any:
		if s, ok := t["text"].(string); ok {
			*out = append(*out, s)
		}
	}
}

func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// versionRE finds the Claude Code version recorded on transcript lines.
var versionRE = regexp.MustCompile(`"version"\s*:\s*"(\d+)\.(\d+)\.(\d+)`)

// claudeVersion returns the Claude Code version recorded last in the
// transcript at path, reading only its last 64 KiB. known is false when the
// file or a version cannot be found.
func claudeVersion(path string) (v [3]int, known bool) {
	if path == "" {
		return v, false
	}
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return v, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return v, false
	}
	from := max(0, fi.Size()-64<<10)
	buf := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return v, false
	}
	all := versionRE.FindAllSubmatch(buf, -1)
	if len(all) == 0 {
		return v, false
	}
	m := all[len(all)-1]
	for i := range 3 {
		n, err := strconv.Atoi(string(m[i+1]))
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func versionLess(a, b [3]int) bool {
	for i := range 3 {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
