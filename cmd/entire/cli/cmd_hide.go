package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/renderrefs"
	"github.com/entirecli/entire/strategy/references"
	"github.com/spf13/cobra"
)

// hideOptions are the dependencies and flags of the `entire hide` commands.
type hideOptions struct {
	f *factory

	ID    string
	Query string
	Page  int // 0: whole content (show)
	JSON  bool
}

// newHideCmd builds `entire hide` and its subcommands. runF, when not nil,
// replaces the run function of every subcommand (tests of flag parsing).
func newHideCmd(f *factory, runF func(ctx context.Context, verb string, opts *hideOptions) error) *cobra.Command {
	if runF == nil {
		runF = runHide
	}
	cmd := &cobra.Command{
		Use:   "hide",
		Short: "List, read, search and delete stored large tool outputs",
		Long: `Hides are large tool outputs that agents read one bounded page at a time.
They are stored in git on the branch entire/hides/v1.

Pages are ` + fmt.Sprint(hide.DefaultPageSize) + ` bytes. Exit status: 0 on success, 1 on any error
(unknown id, no match, not a repository).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	sub := func(use, short string, args cobra.PositionalArgs, bind func(*hideOptions, []string), flags func(*cobra.Command, *hideOptions)) {
		opts := &hideOptions{f: f}
		c := &cobra.Command{
			Use:   use,
			Short: short,
			Args:  args,
			RunE: func(c *cobra.Command, a []string) error {
				bind(opts, a)
				if c.Flags().Changed("page") && opts.Page < 1 {
					return usageErrorf("--page must be 1 or more")
				}
				return runF(c.Context(), c.Name(), opts)
			},
		}
		c.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
		if flags != nil {
			flags(c, opts)
		}
		cmd.AddCommand(c)
	}
	sub("list", "List stored hides, newest first", cobra.NoArgs, func(*hideOptions, []string) {}, nil)
	sub("show <id>", "Print a hide, or one page of it in the envelope agents see", cobra.ExactArgs(1),
		func(o *hideOptions, a []string) { o.ID = a[0] },
		func(c *cobra.Command, o *hideOptions) {
			c.Flags().IntVar(&o.Page, "page", 0, "print page `N` (1-based)")
		})
	sub("search <id> <query>", "Print the first page that contains query (case-insensitive)", cobra.ExactArgs(2),
		func(o *hideOptions, a []string) { o.ID, o.Query = a[0], a[1] }, nil)
	sub("delete <id>", "Delete a hide from the hides branch", cobra.ExactArgs(1),
		func(o *hideOptions, a []string) { o.ID = a[0] }, nil)
	return cmd
}

// cutJSON is the --json form of a page.
type cutJSON struct {
	HideID     string `json:"hide_id"`
	Source     string `json:"source"`
	Page       int    `json:"page"`
	TotalPages int    `json:"total_pages"`
	SizeBytes  int    `json:"size_bytes"`
	IsFinal    bool   `json:"is_final"`
	Content    string `json:"content"`
	Found      *bool  `json:"found,omitempty"`
}

func toCutJSON(c hide.Cut) cutJSON {
	return cutJSON{HideID: c.HideID, Source: c.Source, Page: c.PageNumber, TotalPages: c.TotalPages, SizeBytes: c.SizeBytes, IsFinal: c.IsFinal, Content: c.Content}
}

// runHide runs the hide subcommand verb.
func runHide(_ context.Context, verb string, opts *hideOptions) error {
	repo, err := opts.f.OpenRepo()
	if err != nil {
		return err
	}
	store := openHideStore(opts.f, repo)
	out := opts.f.IO.Out
	switch verb {
	case "list":
		entries, err := store.List()
		if err != nil {
			return err
		}
		if opts.JSON {
			if entries == nil {
				entries = []hide.StoreEntry{}
			}
			return encodeJSONTo(out, entries)
		}
		if len(entries) == 0 {
			fmt.Fprintln(opts.f.IO.ErrOut, "No hides stored.")
			return nil
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSOURCE\tSIZE\tCREATED\tSESSION")
		for _, e := range entries {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", e.ID, e.Source, e.SizeBytes, time.Unix(e.CreatedAt, 0).Format(time.RFC3339), e.SessionID)
		}
		return tw.Flush()
	case "show":
		if opts.Page == 0 {
			entry, content, err := store.Get(opts.ID)
			if err != nil {
				return hideError(opts.ID, err)
			}
			emitRef(opts.f, hideRef(entry))
			if opts.JSON {
				return encodeJSONTo(out, struct {
					hide.StoreEntry
					Content string `json:"content"`
				}{entry, string(content)})
			}
			_, err = out.Write(content)
			return err
		}
		c, err := store.Cut(opts.ID, opts.Page, 0)
		if err != nil {
			return hideError(opts.ID, err)
		}
		if opts.JSON {
			return encodeJSONTo(out, toCutJSON(c))
		}
		_, err = fmt.Fprintln(out, c.Format())
		return err
	case "search":
		c, found, err := store.Search(opts.ID, opts.Query, 0)
		if err != nil {
			return hideError(opts.ID, err)
		}
		if opts.JSON {
			j := toCutJSON(c)
			j.Found = &found
			return encodeJSONTo(out, j)
		}
		if !found {
			return fmt.Errorf("no match for %q in hide %s", opts.Query, opts.ID)
		}
		_, err = fmt.Fprintln(out, c.Format())
		return err
	case "delete":
		if _, err := store.HideTree(opts.ID); err != nil {
			return hideError(opts.ID, err)
		}
		if err := store.Delete(opts.ID); err != nil {
			return err
		}
		if opts.JSON {
			return encodeJSONTo(out, map[string]string{"deleted": opts.ID})
		}
		fmt.Fprintf(opts.f.IO.ErrOut, "Deleted hide %s.\n", opts.ID)
		return nil
	}
	return fmt.Errorf("unknown hide command %q", verb)
}

// hideRef is the render reference of a hide the command showed.
func hideRef(e hide.StoreEntry) renderrefs.Reference {
	return renderrefs.Reference{Type: references.TypeHide, ID: e.ID, Intent: renderrefs.IntentReferenced,
		Preview: &renderrefs.Preview{Title: fmt.Sprintf("%s (%d bytes)", e.Source, e.SizeBytes)}}
}

// hideError words a store error for a person, on one line.
func hideError(id string, err error) error {
	var pre *hide.PageRangeError
	switch {
	case errors.As(err, &pre):
		return fmt.Errorf("hide %s has %d page(s); page %d does not exist", id, pre.Total, pre.Page)
	case errors.Is(err, hide.ErrInvalidID):
		return fmt.Errorf("invalid hide id %q", id)
	case errors.Is(err, hide.ErrNotFound):
		return fmt.Errorf("unknown hide id %q (see 'entire hide list')", id)
	}
	return err
}

// encodeJSONTo writes v as indented JSON and a newline.
func encodeJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
