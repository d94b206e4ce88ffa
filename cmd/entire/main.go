// Command entire records what AI coding agents do in a git repository and
// lets people rewind, resume, explain and share that work.
package main

import (
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
)

func main() {
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
				os.Exit(int(code))
			}
		}
	}
	os.Exit(int(run(os.Args[1:], newFactory())))
}
