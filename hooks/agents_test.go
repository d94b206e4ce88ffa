package hooks

import (
	// The hooks serve the registered agents: the tests use both built-in
	// ones, registered as the binary registers them.
	_ "github.com/entirecli/entire/agent/claudecode"
	_ "github.com/entirecli/entire/agent/geminicli"
)
