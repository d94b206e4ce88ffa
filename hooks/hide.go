package hooks

import (
	"fmt"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/hide"
)

// postTool handles a post-tool verb that hides large results
// (agent.PostToolHides): a tool result whose largest text is over the hide
// threshold is stored as a hide of the session and the agent gets page 1 in
// its place, in the answer the agent's plan builds (agent.ToolOutputHider).
// Results of Entire's own MCP tools are pages already and are never hidden.
// Below the threshold it returns (nil, nil) after a length check.
func (h *agentHook) postTool() (map[string]any, error) {
	threshold := h.senv.Settings.HideThresholdBytes()
	if len(h.in.ToolResponse) <= threshold || agent.IsEntireMCPTool(h.in.ToolName) {
		return nil, nil
	}
	hider, ok := h.agent.(agent.ToolOutputHider)
	if !ok {
		return nil, nil
	}
	plan, ok := hider.PlanHide(h.in, threshold)
	if !ok {
		return nil, nil
	}
	// A large output is stored undeflated, and deflated after the agent
	// has its answer (compressLater).
	h.senv.Repo.DeferDeflation()
	store := hide.NewStore(h.senv.Repo, hide.WithRedact(h.senv.Redactor.Text), hide.WithClock(h.env.Now))
	source := h.in.ToolName
	if source == "" {
		source = "tool"
	}
	// The plan's text may share the payload's memory: it is stored
	// without a copy, and page 1 is cut from it, not read back.
	entry, cut, err := store.PutText("", source, plan.Text, map[string]string{hide.MetaSessionID: h.in.SessionID}, 0)
	compressLater(h.senv)
	if err != nil {
		return nil, fmt.Errorf("store hide: %w", err)
	}
	h.senv.Log.Info("tool output hidden", "session_id", h.in.SessionID, "tool", h.in.ToolName,
		"hide_id", entry.ID, "bytes", entry.SizeBytes, "pages", cut.TotalPages)
	note := fmt.Sprintf("Entire stored this %s output (%d bytes, %d pages) as hide %s. "+
		"Read the other pages with the hide_next, hide_jump and hide_search tools (hide_id %q).",
		h.in.ToolName, entry.SizeBytes, cut.TotalPages, entry.ID, entry.ID)
	return plan.Answer(cut.Format(), note), nil
}
