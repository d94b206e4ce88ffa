// Package all registers every concrete agent with the agent registry. A
// program imports it once, for its side effect; everything else asks the
// agent package's interfaces.
package all

import (
	_ "github.com/entirecli/entire/agent/antigravity" // registers itself
	_ "github.com/entirecli/entire/agent/claudecode"  // registers itself
	_ "github.com/entirecli/entire/agent/codex"       // registers itself
	_ "github.com/entirecli/entire/agent/copilotcli"  // registers itself
	_ "github.com/entirecli/entire/agent/cursor"      // registers itself
	_ "github.com/entirecli/entire/agent/droid"       // registers itself
	_ "github.com/entirecli/entire/agent/geminicli"   // registers itself
	_ "github.com/entirecli/entire/agent/opencode"    // registers itself
	_ "github.com/entirecli/entire/agent/pi"          // registers itself
)
