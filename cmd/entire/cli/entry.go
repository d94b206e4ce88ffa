// Package cli is the entire command: its commands, flags and exit codes.
// The program in cmd/entire runs Main; the end-to-end tests run it from
// their own test binary (see cmd/entire/e2etest).
package cli

import (
	"os"

	"github.com/entirecli/entire/internal/proc"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
)

// hookMemoryLimit is the heap size from which a hook process collects
// garbage; below it, none is collected.
const hookMemoryLimit = 96 << 20

// Main runs the command line of the process (os.Args) and returns its exit
// status.
func Main() int {
	if isFinishCall(os.Args[1:]) {
		// The steps of turn ends are written while the agent goes on:
		// they must not take the CPU from its next hooks.
		proc.LowerPriority()
	}
	if isHookCall(os.Args[1:]) {
		// A hook is a short-lived process whose garbage dies with it:
		// collect only past a memory bound instead of every few megabytes.
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(hookMemoryLimit)
	}
	// ENTIRE_CPUPROFILE=<file> writes a CPU profile of the command, to
	// measure hooks as the agent runs them; %p in the name is the process
	// ID, so that every hook of a session keeps its own.
	if p := os.Getenv("ENTIRE_CPUPROFILE"); p != "" {
		p = strings.ReplaceAll(p, "%p", strconv.Itoa(os.Getpid()))
		if f, err := os.Create(p); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				code := run(os.Args[1:], newFactory())
				pprof.StopCPUProfile()
				f.Close()
				return int(code)
			}
		}
	}
	return int(run(os.Args[1:], newFactory()))
}

// isFinishCall reports whether args are background work a hook started:
// finish-turn or compress-objects.
func isFinishCall(args []string) bool {
	return len(args) > 1 && args[0] == "hooks" && (args[1] == "finish-turn" || args[1] == "compress-objects")
}

// isHookCall reports whether args are an agent's or git's call of a hook
// (`entire hooks <agent|git> ...`), not background work (isFinishCall).
func isHookCall(args []string) bool {
	return len(args) > 1 && args[0] == "hooks" && !isFinishCall(args)
}
