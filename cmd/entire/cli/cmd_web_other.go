//go:build !linux

package cli

import "os/exec"

// stopWithParent does nothing where the system cannot tie a child's life
// to its parent's.
func stopWithParent(*exec.Cmd) {}
