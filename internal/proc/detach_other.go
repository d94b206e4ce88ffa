//go:build !unix

package proc

import "os/exec"

// NewSession is a no-op where sessions are not available.
func NewSession(cmd *exec.Cmd) {}

// Detach is a no-op where process groups are not available: cancellation
// kills the process itself, and the wait delay closes pipes a child still
// holds.
func Detach(cmd *exec.Cmd) {}

// LowerPriority is a no-op where process priorities are not available.
func LowerPriority() {}
