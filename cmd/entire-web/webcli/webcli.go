// Package webcli is the entire-web command: its flags and exit codes. The
// program in cmd/entire-web runs Main; the end-to-end tests run it from
// their own test binary (see cmd/entire/e2etest).
package webcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	_ "github.com/entirecli/entire/agent/all" // the agents' transcript readers

	"github.com/entirecli/entire/cmd/entire-web/webserver"
)

// Main serves the web view as the process's command line (os.Args) asks
// until interrupted, and returns the exit status.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// ENTIRE_CPUPROFILE=<file> profiles the run, as it does entire's.
	if p := os.Getenv("ENTIRE_CPUPROFILE"); p != "" {
		if f, err := os.Create(strings.ReplaceAll(p, "%p", strconv.Itoa(os.Getpid()))); err == nil && pprof.StartCPUProfile(f) == nil {
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	return run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// run parses args, serves, and returns the exit status: 0 after a clean
// stop, 1 on an error (printed as one line), 2 on bad usage.
func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "search":
			return runSearch(ctx, args[1:], out, errOut)
		case "index":
			return runIndex(ctx, args[1:], errOut)
		}
	}
	fs := flag.NewFlagSet("entire web", flag.ContinueOnError)
	fs.SetOutput(errOut)
	opts := webserver.RunOptions{Out: out, ErrOut: errOut, Getenv: os.Getenv}
	fs.IntVar(&opts.Port, "port", 0, "port on 127.0.0.1 (0: a free one)")
	fs.BoolVar(&opts.NoOpen, "no-open", false, "do not open the browser")
	fs.StringVar(&opts.Branch, "branch", "", "branch to show first (default: the current one)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || opts.Port < 0 || opts.Port > 65535 {
		fmt.Fprintln(errOut, "usage: entire web [--port N] [--no-open] [--branch B] (port 0-65535)")
		return 2
	}
	dir, err := os.Getwd()
	if err == nil {
		opts.Dir = dir
		err = webserver.Run(ctx, opts)
	}
	if err != nil {
		fmt.Fprintf(errOut, "entire web: %v\n", err)
		return 1
	}
	return 0
}
