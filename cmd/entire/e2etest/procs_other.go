//go:build !linux

package e2etest

import (
	"os"
	"strconv"
	"time"
)

// procMarker is the marker of test name in this test binary.
func procMarker(name string) string { return strconv.Itoa(os.Getpid()) + ":" + name }

// Without /proc and pidfds the harness does not track the processes a
// test caused: the tiers run on Linux in CI.
func awaitExit(string, func([]string) bool, time.Duration) []string { return nil }

func stopWatchers(string) {}

func killAll(string) {}
