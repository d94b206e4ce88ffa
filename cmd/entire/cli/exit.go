package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/entirecli/entire/internal/iostreams"
	"github.com/spf13/cobra"
)

// exitCode is the process exit status. The table is decided here and only
// here:
//
//	0   success (including "nothing to do")
//	1   any error, including invalid usage
//	130 interrupted (SIGINT/SIGTERM; a second one exits at once)
type exitCode int

const (
	exitOK          exitCode = 0
	exitError       exitCode = 1
	exitInterrupted exitCode = 130
)

// errSilent marks an error whose message the command has already printed.
var errSilent = errors.New("silent error")

// silentError wraps err so that run exits 1 without printing it again.
func silentError(err error) error {
	if err == nil {
		return errSilent
	}
	return fmt.Errorf("%w: %w", errSilent, err)
}

// run builds the command tree, executes args and maps the outcome to an exit
// code. It never lets a panic escape as a stack trace.
func run(args []string, f *factory) (code exitCode) {
	ctx, stop := notifyInterrupts(context.Background())
	defer stop()

	f.External = externalAgents(args, f)
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)

	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(f.IO.ErrOut, "internal error: %v\n", r)
			code = exitError
		}
	}()

	cmd, err := root.ExecuteContextC(ctx)
	return reportError(f, cmd, err, ctx.Err() != nil)
}

// notifyInterrupts returns a context cancelled by the first SIGINT or
// SIGTERM: the command (a hook in the middle of a write) stops at the next
// safe point and exits 130. A second signal ends the process at once with
// 130, as an agent that gave up waiting expects; nothing already saved is
// lost, since every file and ref is replaced atomically. stop releases the
// signals.
func notifyInterrupts(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for n := 0; ; n++ {
			select {
			case <-sigs:
				if n > 0 {
					os.Exit(int(exitInterrupted))
				}
				cancel()
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// reportError prints err the way the error policy wants and returns the exit
// code for it.
func reportError(f *factory, cmd *cobra.Command, err error, interrupted bool) exitCode {
	switch {
	case err == nil:
		return exitOK
	case interrupted || errors.Is(err, context.Canceled):
		fmt.Fprintln(f.IO.ErrOut, "Interrupted.")
		return exitInterrupted
	case errors.As(err, new(*exitStatus)):
		var es *exitStatus
		errors.As(err, &es)
		return exitCode(es.code)
	case errors.Is(err, errSilent):
		return exitError
	case isUsageError(err):
		if cmd != nil {
			fmt.Fprint(f.IO.ErrOut, cmd.UsageString())
		}
		fmt.Fprintf(f.IO.ErrOut, "Error: Invalid usage: %s\n", escapeLines(err.Error()))
		return exitError
	default:
		fmt.Fprintln(f.IO.ErrOut, escapeLines(strings.TrimSpace(err.Error())))
		return exitError
	}
}

// escapeLines escapes each line of an error message for the terminal
// (errors quote paths, IDs and names from checkpoints a teammate pushed),
// keeping the line breaks the message has on purpose.
func escapeLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = iostreams.Escape(l)
	}
	return strings.Join(lines, "\n")
}

// exitStatus carries an exit status decided by a command that speaks
// another program's protocol (hook handlers).
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitWith returns nil for 0, else an error that makes run exit with code
// without printing anything.
func exitWith(code int) error {
	if code == 0 {
		return nil
	}
	return &exitStatus{code}
}

// usageError marks a wrong command line (bad flag combination, wrong number
// of arguments) detected by a command itself.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf returns a usage error with a formatted message.
func usageErrorf(format string, a ...any) error {
	return &usageError{fmt.Errorf(format, a...)}
}

func isUsageError(err error) bool {
	var ue *usageError
	if errors.As(err, &ue) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "unknown command") || strings.Contains(msg, "unknown flag") ||
		strings.Contains(msg, "unknown shorthand flag") || strings.Contains(msg, "flag needs an argument") ||
		strings.Contains(msg, "invalid argument")
}
