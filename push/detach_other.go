//go:build !unix

package push

import "os/exec"

// detach is a no-op where process groups are not available: cancellation
// kills git itself, and the wait delay closes pipes a child still holds.
func detach(cmd *exec.Cmd) {}
