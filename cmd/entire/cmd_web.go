package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/cmd/entire/webserver"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/redact"
)

// webOptions are the flags of `entire web`.
type webOptions struct {
	f      *factory
	Port   int
	NoOpen bool
	Branch string
	// open opens a URL in the browser (nil: the system's opener).
	open func(url string) error
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
opens the browser unless --no-open. Stop it with Ctrl-C.`,
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

func runWeb(ctx context.Context, opts *webOptions) error {
	f := opts.f
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	s := loadSettings(repo)
	l := &explain.Loader{Repo: repo, Store: checkpoint.NewStore(repo, f.Now), DefaultBranch: repo.DefaultBranch(),
		Remote: s.CheckpointRemote(), Branch: opts.Branch}
	srv, err := webserver.New(webserver.Options{Loader: l, Redact: redact.FromSettings(s, nil, nil).Text})
	if err != nil {
		return err
	}
	ln, url, err := srv.Listen(opts.Port)
	if err != nil {
		return err
	}
	fmt.Fprintln(f.IO.Out, url)
	fmt.Fprintln(f.IO.ErrOut, "Serving this repository's checkpoints on 127.0.0.1 (read-only); Ctrl-C stops.")
	if !opts.NoOpen {
		open := opts.open
		if open == nil {
			open = openBrowser
		}
		if err := open(url); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "Could not open a browser (%v): open the URL above.\n", err)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(f.IO.ErrOut, "Stopped.")
	return nil
}

// openBrowser opens url with the system's opener, without waiting for it.
func openBrowser(url string) error {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start()
	}
	cmd := exec.Command(name, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
