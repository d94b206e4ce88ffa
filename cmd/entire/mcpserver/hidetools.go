package mcpserver

import (
	"fmt"
	"strings"

	"github.com/entirecli/entire/hide"
)

// hideTool serves hide_next, hide_jump and hide_search: the answer is the
// Cut envelope of the page.
func (t *tools) hideTool(name string, args map[string]any) (string, bool) {
	if t.opts.Hides == nil {
		return "hides are not available", true
	}
	given := strings.TrimSpace(stringArg(args, "hide_id"))
	id, ok, err := t.opts.Hides.ResolveID(t.opts.SessionID, given)
	if err != nil {
		return fmt.Sprintf("hide tool: %v", err), true
	}
	if !ok {
		if given == "" {
			return "hide tool requires hide_id", true
		}
		return fmt.Sprintf("hide tool unknown hide id %q", given), true
	}
	var cut hide.Cut
	switch name {
	case hide.ToolNext:
		cur, ok := intArg(args, "current_page")
		if !ok || cur < 1 {
			return "hide_next requires current_page >= 1 (the page number in the current [HIDE ...] header)", true
		}
		cut, err = t.opts.Hides.Cut(id, cur+1, t.opts.PageSize)
	case hide.ToolJump:
		page, ok := intArg(args, "page")
		if !ok || page < 1 {
			return "hide_jump requires page >= 1", true
		}
		cut, err = t.opts.Hides.Cut(id, page, t.opts.PageSize)
	case hide.ToolSearch:
		cut, _, err = t.opts.Hides.Search(id, stringArg(args, "query"), t.opts.PageSize)
	}
	if err != nil {
		return err.Error(), true
	}
	return cut.Format(), false
}
