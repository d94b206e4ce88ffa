package webcli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/explain/search"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
	"github.com/go-git/go-git/v5/plumbing"
)

// openIndex opens the search index of the repository around the working
// directory, with its checkpoint store and redaction rules.
func openIndex(ctx context.Context, wait time.Duration) (*search.Index, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: os.Getenv})
	if errors.Is(err, gitrepo.ErrNotRepository) {
		return nil, errors.New("not a git repository (run this inside a git repository)")
	}
	if err != nil {
		return nil, err
	}
	s := settings.LoadOrDefaults(repo.Root)
	store := checkpoint.NewStore(repo, time.Now)
	if dest := push.Resolve(ctx, repo, s, push.ResolveOptions{Getenv: os.Getenv}); dest.Fetches() {
		store = store.WithRemoteRef(dest.TrackingRef(checkpoint.MetadataBranch))
	}
	return search.Open(repo, store, redact.FromSettings(s, nil, nil).Text, wait)
}

// runSearch is `entire search`: it brings the index up to date and prints
// the hits, as text or JSON lines. It returns the exit status.
func runSearch(ctx context.Context, args []string, out, errOut io.Writer) int {
	fs := flag.NewFlagSet("entire search", flag.ContinueOnError)
	fs.SetOutput(errOut)
	var q search.Query
	var since string
	var asJSON bool
	fs.StringVar(&q.Branch, "branch", "", "only checkpoints made on this branch")
	fs.StringVar(&q.Agent, "agent", "", "only sessions of this agent (its name as entire enable --agent takes it)")
	fs.StringVar(&since, "since", "", "only checkpoints made since this date (YYYY-MM-DD, RFC 3339, or a duration like 72h)")
	fs.IntVar(&q.Limit, "limit", 20, "at most this many hits")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object per hit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	q.Text = strings.Join(fs.Args(), " ")
	if strings.TrimSpace(q.Text) == "" || q.Limit < 1 {
		fmt.Fprintln(errOut, "usage: entire search [--branch B] [--agent A] [--since D] [--limit N] [--json] <query>")
		return 2
	}
	if since != "" {
		t, err := parseSince(since, time.Now())
		if err != nil {
			fmt.Fprintf(errOut, "entire search: %v\n", err)
			return 2
		}
		q.Since = t
	}
	x, err := openIndex(ctx, 30*time.Second)
	if err != nil {
		fmt.Fprintf(errOut, "entire search: %s\n", iostreams.Escape(err.Error()))
		return 1
	}
	defer x.Close()
	if n, err := x.Update(ctx); err != nil {
		fmt.Fprintf(errOut, "entire search: indexing: %s\n", iostreams.Escape(err.Error()))
	} else if n > 50 {
		fmt.Fprintf(errOut, "Indexed %d checkpoints.\n", n)
	}
	hits, err := x.Search(q)
	if err != nil {
		fmt.Fprintf(errOut, "entire search: %s\n", iostreams.Escape(err.Error()))
		return 1
	}
	if asJSON {
		enc := json.NewEncoder(out)
		for _, h := range hits {
			if err := enc.Encode(h); err != nil {
				return 1
			}
		}
		return 0
	}
	if len(hits) == 0 {
		fmt.Fprintln(out, "No matches.")
		return 0
	}
	for _, h := range hits {
		commit := h.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if commit == "" {
			commit = "(no commit)"
		}
		fmt.Fprintf(out, "%s  checkpoint %s  session %s turn %d  %s  %s\n", iostreams.Escape(h.Time.Local().Format("2006-01-02")), h.CheckpointID,
			iostreams.Escape(shorten(h.SessionID, 8)), h.Turn, commit, iostreams.Escape(h.Agent))
		fmt.Fprintf(out, "  %s: %s\n\n", h.Field, iostreams.Escape(h.Snippet))
	}
	return 0
}

// runIndex is `entire-web index [--commit <hash>] [<checkpoint>...]`: it
// indexes the checkpoints named (the post-commit names its new ones and
// its commit, in the background), or brings the index up to date with every checkpoint. It
// returns the exit status.
func runIndex(ctx context.Context, args []string, errOut io.Writer) int {
	var ids []checkpoint.ID
	commit := ""
	if len(args) > 1 && args[0] == "--commit" {
		commit, args = args[1], args[2:]
	}
	for _, a := range args {
		id, err := checkpoint.ParseID(a)
		if err != nil || (commit != "" && !plumbing.IsHash(commit)) {
			fmt.Fprintln(errOut, "usage: entire-web index [--commit <hash>] [<checkpoint ID>...]")
			return 2
		}
		ids = append(ids, id)
	}
	x, err := openIndex(ctx, 5*time.Second)
	if err != nil {
		fmt.Fprintf(errOut, "entire-web index: %s\n", iostreams.Escape(err.Error()))
		return 1
	}
	defer x.Close()
	if len(ids) > 0 {
		_, err = x.Add(ctx, ids, commit)
	} else {
		_, err = x.Update(ctx)
	}
	if err != nil {
		fmt.Fprintf(errOut, "entire-web index: %s\n", iostreams.Escape(err.Error()))
		return 1
	}
	return 0
}

// parseSince reads --since: a date, an RFC 3339 time or a duration ago.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("invalid --since %q: use YYYY-MM-DD, an RFC 3339 time or a duration such as 72h", s)
}

// shorten returns s's first n bytes.
func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
