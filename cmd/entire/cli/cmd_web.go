package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
)

// webProgram is the program that serves the web view. It is a binary of
// its own, installed beside entire, so that what only the web view needs
// (a syntax highlighter whose registry takes tens of milliseconds to
// build when a process starts) never slows the hooks down.
const webProgram = "entire-web"

// webOptions are the flags of `entire web`.
type webOptions struct {
	f      *factory
	Port   int
	NoOpen bool
	Branch string
}

func newWebCmd(f *factory, runF func(context.Context, *webOptions) error) *cobra.Command {
	opts := &webOptions{f: f}
	cmd := &cobra.Command{
		Use:   "web",
		Short: "Browse the sessions and checkpoints of this repository in a local web page",
		Long: `Serve a read-only view of this repository's checkpoints on 127.0.0.1: the
branch's timeline, each checkpoint's conversation with its tool calls, the
files it changed as a diff, tokens per turn, and the commands to rewind or
resume it. Nothing is uploaded. The printed URL carries a random token; it
opens the browser unless --no-open. Stop it with Ctrl-C.

The server is the entire-web program, installed beside entire.`,
		Example: `  entire web
  entire web --no-open --port 8765
  entire web --branch feature`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Port < 0 || opts.Port > 65535 {
				return usageErrorf("--port must be between 0 and 65535")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runWeb(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Port, "port", 0, "port on 127.0.0.1 (0: a free one)")
	cmd.Flags().BoolVar(&opts.NoOpen, "no-open", false, "do not open the browser")
	cmd.Flags().StringVar(&opts.Branch, "branch", "", "branch to show first (default: the current one)")
	return cmd
}

// runWeb runs entire-web with the flags, in the working directory, its
// streams the command's own. Ctrl-C reaches it (it shares the terminal);
// a cancelled command passes the interrupt on and waits for it to stop.
func runWeb(ctx context.Context, opts *webOptions) error {
	args := []string{"--port", strconv.Itoa(opts.Port), "--branch", opts.Branch}
	if opts.NoOpen {
		args = append(args, "--no-open")
	}
	return runWebProgram(ctx, opts.f, args, true)
}

// runWebProgram runs entire-web with args in the working directory of a
// repository, its output the command's own; interactive gives it the
// standard input too, and on cancellation an interrupt and time to stop.
// Its exit status becomes the command's.
func runWebProgram(ctx context.Context, f *factory, args []string, interactive bool) error {
	if _, err := f.OpenRepo(); err != nil {
		return err
	}
	bin, err := findWebProgram()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = f.IO.Out, f.IO.ErrOut
	if interactive {
		cmd.Stdin = f.IO.In
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = 10 * time.Second
	}
	if wd, err := f.Getwd(); err == nil {
		cmd.Dir = wd
	}
	stopWithParent(cmd)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exitWith(exit.ExitCode()) // it said why
	case interactive && ctx.Err() != nil:
		return nil // stopped by the interrupt it was passed
	}
	return fmt.Errorf("run %s: %w", bin, err)
}

// findWebProgram finds entire-web beside the running entire, else on PATH.
func findWebProgram() (string, error) {
	if self, err := os.Executable(); err == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		p := filepath.Join(filepath.Dir(self), webProgram)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(webProgram); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("entire web needs the %s program, which is neither beside entire nor on PATH: install it with scripts/install.sh (or go install github.com/entirecli/entire/cmd/%s@latest)", webProgram, webProgram)
}
