package webserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/explain/search"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
)

// RunOptions are what `entire web` was asked for, and the process's
// environment.
type RunOptions struct {
	// Dir is a directory inside the repository to serve.
	Dir string
	// Port is the port on 127.0.0.1; 0 picks a free one.
	Port int
	// NoOpen leaves the browser closed.
	NoOpen bool
	// Branch is the branch shown first; "" means the current one.
	Branch string
	// Out gets the URL, as its first line; ErrOut the messages for people.
	Out, ErrOut io.Writer
	// Getenv looks up the environment (git's variables).
	Getenv func(string) string
	// Open opens a URL in a browser; nil means the system's opener.
	Open func(url string) error
}

// ErrNotRepository is returned by Run outside a git repository.
var ErrNotRepository = errors.New("not a git repository (run this inside a git repository)")

// Run serves the repository around opts.Dir until ctx ends: it prints the
// URL (with the run's token) as the first line of opts.Out and opens it
// unless opts.NoOpen. Strings from this machine's sessions go through the
// redaction rules of the repository's settings.
func Run(ctx context.Context, opts RunOptions) error {
	repo, err := gitrepo.Open(opts.Dir, gitrepo.Options{Getenv: opts.Getenv})
	if errors.Is(err, gitrepo.ErrNotRepository) {
		return ErrNotRepository
	}
	if err != nil {
		return err
	}
	s := settings.LoadOrDefaults(repo.Root)
	dest := push.Resolve(ctx, repo, s, push.ResolveOptions{Getenv: opts.Getenv})
	store := checkpoint.NewStore(repo, time.Now)
	if dest.Fetches() {
		store = store.WithRemoteRef(dest.TrackingRef(checkpoint.MetadataBranch))
	}
	l := &explain.Loader{Repo: repo, Store: store, DefaultBranch: repo.DefaultBranch(),
		Remote: dest.FetchArg(), Branch: opts.Branch}
	red := redact.FromSettings(s, nil, nil).Text
	srv, err := New(Options{Loader: l, Redact: red,
		Blame: func(ctx context.Context, path, rev string) ([]explain.BlameLine, error) {
			return (&explain.Blamer{Repo: repo, Store: store}).Blame(ctx, path, rev, 0, 0)
		},
		Search: func(q search.Query) ([]search.Hit, error) {
			x, err := search.Open(repo, store, red, 10*time.Second)
			if err != nil {
				return nil, err
			}
			defer x.Close()
			if _, err := x.Update(ctx); err != nil {
				return nil, err
			}
			return x.Search(q)
		},
	})
	if err != nil {
		return err
	}
	ln, url, err := srv.Listen(opts.Port)
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.Out, url)
	fmt.Fprintln(opts.ErrOut, "Serving this repository's checkpoints on 127.0.0.1 (read-only); Ctrl-C stops.")
	if !opts.NoOpen {
		open := opts.Open
		if open == nil {
			open = openBrowser
		}
		if err := open(url); err != nil {
			fmt.Fprintf(opts.ErrOut, "Could not open a browser (%v): open the URL above.\n", err)
		}
	}
	if err := srv.Serve(ctx, ln); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(opts.ErrOut, "Stopped.")
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
