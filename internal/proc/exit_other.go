//go:build !linux

package proc

import "time"

// AwaitExit waits, at most limit, until process pid has exited, and
// reports whether it has. Without pidfds it probes the process every few
// milliseconds.
func AwaitExit(pid int, limit time.Duration) bool {
	return awaitExitByProbe(pid, limit)
}
