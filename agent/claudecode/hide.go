package claudecode

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/entirecli/entire/agent"
)

var _ agent.ToolOutputHider = (*Agent)(nil)

// minUpdatedOutputVersion is the version from which Claude Code replaces the
// result of every tool with a PostToolUse hook's
// hookSpecificOutput.updatedToolOutput (AGENT-HOOKS.md A5); older versions
// keep the original result.
var minUpdatedOutputVersion = [3]int{2, 1, 121}

// PlanHide plans the hiding of a PostToolUse tool_response (planResponse)
// and answers in the form the Claude Code version recorded in the
// transcript accepts: updatedToolOutput from 2.1.121 on; before it only
// an MCP tool's result can be replaced (updatedMCPToolOutput) and any other
// gets the note as additional context; with the version unknown, both the
// replacement and the note.
func (a *Agent) PlanHide(in *agent.HookInput, threshold int) (agent.HidePlan, bool) {
	mcpTool := isMCPTool(in.ToolName)
	plan := planResponse(in.ToolResponse, threshold, mcpTool)
	if plan == nil {
		return agent.HidePlan{}, false
	}
	transcript := in.SessionRef
	return agent.HidePlan{Text: plan.text, Answer: func(page, note string) map[string]any {
		out := map[string]any{"hookEventName": "PostToolUse"}
		switch version, known := transcriptVersion(transcript); {
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
		return map[string]any{"hookSpecificOutput": out}
	}}, true
}

// hidePlan is how one tool result is hidden: the text stored as the hide
// and how to build the result the agent sees instead.
type hidePlan struct {
	text string
	// replace returns the tool result with page (a Cut envelope) in place
	// of the hidden text, in the tool's own output shape.
	replace func(page string) any
}

// planResponse plans the hiding of a PostToolUse tool_response so that the
// replacement keeps the tool's output schema: a string result becomes the
// page; otherwise the largest text unit (a string field, or an array of
// strings joined by newlines) over threshold is hidden and replaced in place
// (an array by a one-element array). For MCP tools, whose output is not
// validated, content blocks whose texts together pass threshold are hidden
// together and replaced by one text block. Nil when nothing qualifies. Its
// long strings are decoded in place: raw is the plan's afterwards.
func planResponse(raw []byte, threshold int, mcp bool) *hidePlan {
	v, err := agent.DecodeJSONValueInPlace(raw)
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
		if text := agent.TextOf(v); len(text) > threshold {
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

// versionRE finds the Claude Code version recorded on transcript lines.
var versionRE = regexp.MustCompile(`"version"\s*:\s*"(\d+)\.(\d+)\.(\d+)`)

// transcriptVersion returns the Claude Code version recorded last in the
// transcript at path, reading only its last 64 KiB. known is false when the
// file or a version cannot be found.
func transcriptVersion(path string) (v [3]int, known bool) {
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
