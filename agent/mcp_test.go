package agent_test

import (
	"reflect"
	"testing"

	"github.com/entirecli/entire/agent"
)

// The built-in agents are registered by chunk_test.go's imports.

func TestIsEntireMCPTool(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"mcp__entire__hide_next": true, "mcp_entire_hide_jump": true, "entire__note_list": true,
		"Bash": false, "mcp__other__x": false, "read_file": false} {
		if agent.IsEntireMCPTool(name) != want {
			t.Errorf("IsEntireMCPTool(%q) != %v", name, want)
		}
	}
}

func TestMCPFiles(t *testing.T) {
	t.Parallel()
	want := []string{".claude", ".claude/settings.local.json", ".gemini", ".gemini/settings.json", ".mcp.json"}
	if got := agent.MCPFiles(); !reflect.DeepEqual(got, want) {
		t.Errorf("MCPFiles = %q, want %q", got, want)
	}
}
