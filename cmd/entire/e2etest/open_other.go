//go:build !linux

package e2etest

import (
	"testing"
	"time"
)

// WatchOpen stands for inotify's IN_OPEN where there is none: the returned
// function pauses a second, time enough for a process started meanwhile
// to open the file.
func WatchOpen(t testing.TB, path string) (await func(limit time.Duration)) {
	return func(time.Duration) { time.Sleep(time.Second) }
}
