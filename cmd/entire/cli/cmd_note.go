package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/humantime"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/renderrefs"
	"github.com/entirecli/entire/strategy/references"
	"github.com/spf13/cobra"
)

// noteOptions are the dependencies and flags of the `entire note` commands.
type noteOptions struct {
	f *factory

	Agent   string // "" = the current session's agent, else claude-code
	Key     string
	Content string // "-" = read standard input (save)
	JSON    bool
}

// newNoteCmd builds `entire note` and its subcommands. runF, when not nil,
// replaces the run function of every subcommand (tests of flag parsing).
func newNoteCmd(f *factory, runF func(ctx context.Context, verb string, opts *noteOptions) error) *cobra.Command {
	if runF == nil {
		runF = runNote
	}
	defaultAgent := string(agent.DefaultAgentName) // before the flag variable shadows the package
	var agent string
	cmd := &cobra.Command{
		Use:   "note",
		Short: "List, read and edit the notes agents keep between sessions",
		Long: `Notes are durable facts an agent keeps between sessions, per repository and per
agent (` + agentNameList("") + `). They are stored in git on the branch entire/notes/v1.

Keys are 1-64 characters of a-z, 0-9, '_' and '-', starting with a letter or
digit. A note holds at most ` + fmt.Sprint(notes.DefaultMaxBytes) + ` bytes, and an agent at most ` + fmt.Sprint(notes.DefaultMaxCount) + ` notes.
Exit status: 0 on success, 1 on any error (unknown or invalid key, quota,
not a repository).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&agent, "agent", "", "agent whose notes to use (default: the current session's agent, else "+defaultAgent+")")
	sub := func(use, short string, args cobra.PositionalArgs, bind func(*noteOptions, []string)) {
		opts := &noteOptions{f: f}
		c := &cobra.Command{
			Use:   use,
			Short: short,
			Args:  args,
			RunE: func(c *cobra.Command, a []string) error {
				opts.Agent = agent
				bind(opts, a)
				return runF(c.Context(), c.Name(), opts)
			},
		}
		c.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
		cmd.AddCommand(c)
	}
	key := func(o *noteOptions, a []string) { o.Key = a[0] }
	sub("list", "List notes, most recently updated first", cobra.NoArgs, func(*noteOptions, []string) {})
	sub("show <key>", "Print a note's content", cobra.ExactArgs(1), key)
	sub("save <key> <content>", "Save a note (content '-' reads standard input)", cobra.ExactArgs(2),
		func(o *noteOptions, a []string) { o.Key, o.Content = a[0], a[1] })
	sub("delete <key>", "Delete a note", cobra.ExactArgs(1), key)
	sub("pin <key>", "Pin a note into the agent's context on every step", cobra.ExactArgs(1), key)
	sub("unpin <key>", "Unpin a note (it stays saved)", cobra.ExactArgs(1), key)
	return cmd
}

// runNote runs the note subcommand verb.
func runNote(ctx context.Context, verb string, opts *noteOptions) error {
	repo, err := opts.f.OpenRepo()
	if err != nil {
		return err
	}
	store, err := openNotesStore(ctx, opts.f, repo, opts.Agent)
	if err != nil {
		return err
	}
	out, errOut := opts.f.IO.Out, opts.f.IO.ErrOut
	key := strings.TrimSpace(opts.Key)
	if verb != "list" {
		if err := notes.ValidateKey(key); err != nil {
			return err
		}
	}
	switch verb {
	case "list":
		list, err := store.List(ctx)
		if err != nil {
			return err
		}
		if opts.JSON {
			if list == nil {
				list = []notes.Note{}
			}
			return encodeJSONTo(out, list)
		}
		if len(list) == 0 {
			fmt.Fprintf(errOut, "No notes stored for %s.\n", store.Agent())
			return nil
		}
		now := opts.f.Now()
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tPINNED\tUPDATED\tPREVIEW")
		for _, n := range list {
			pinned := ""
			if n.InContext {
				pinned = "yes"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n.Key, pinned, humantime.Ago(n.UpdatedAt, now), n.Preview)
		}
		return tw.Flush()
	case "show":
		n, err := store.Get(ctx, key)
		if err != nil {
			return noteError(key, store.Agent(), err)
		}
		emitRef(opts.f, noteRef(store.Agent(), key, n.Preview, renderrefs.IntentReferenced))
		if opts.JSON {
			return encodeJSONTo(out, n)
		}
		fmt.Fprint(out, n.Content)
		if !strings.HasSuffix(n.Content, "\n") {
			fmt.Fprintln(out)
		}
		return nil
	case "save":
		content := opts.Content
		if content == "-" {
			b, err := io.ReadAll(io.LimitReader(opts.f.IO.In, notes.DefaultMaxBytes+1))
			if err != nil {
				return fmt.Errorf("read standard input: %w", err)
			}
			content = string(b)
		}
		_, getErr := store.Get(ctx, key)
		if err := store.Save(ctx, key, content, notes.DefaultMaxBytes, notes.DefaultMaxCount); err != nil {
			return err
		}
		created := errors.Is(getErr, notes.ErrNotFound)
		emitRef(opts.f, noteRef(store.Agent(), key, notes.Preview(content), renderrefs.IntentCreated))
		if opts.JSON {
			return encodeJSONTo(out, map[string]any{"key": key, "agent": store.Agent(), "created": created})
		}
		fmt.Fprintf(errOut, "Saved note %s for %s.\n", key, store.Agent())
		return nil
	case "delete":
		if _, err := store.Get(ctx, key); err != nil {
			return noteError(key, store.Agent(), err)
		}
		if err := store.Delete(ctx, key); err != nil {
			return err
		}
		return noteDone(opts, map[string]any{"deleted": key, "agent": store.Agent()}, "Deleted note %s for %s.\n", key, store.Agent())
	case "pin", "unpin":
		if err := store.SetInContext(ctx, key, verb == "pin"); err != nil {
			return noteError(key, store.Agent(), err)
		}
		return noteDone(opts, map[string]any{"key": key, "agent": store.Agent(), "pinned": verb == "pin"}, "%sned note %s for %s.\n", strings.ToUpper(verb[:1])+verb[1:], key, store.Agent())
	}
	return fmt.Errorf("unknown note command %q", verb)
}

// noteRef is the render reference of a note.
func noteRef(agent, key, title, intent string) renderrefs.Reference {
	return renderrefs.Reference{Type: references.TypeNote, ID: key, Intent: intent, AgentID: agent, Preview: &renderrefs.Preview{Title: title}}
}

// noteDone reports a change: JSON on Out with --json, else a line on ErrOut.
func noteDone(opts *noteOptions, v any, format string, a ...any) error {
	if opts.JSON {
		return encodeJSONTo(opts.f.IO.Out, v)
	}
	fmt.Fprintf(opts.f.IO.ErrOut, format, a...)
	return nil
}

// noteError words a store error for a person, on one line.
func noteError(key, agent string, err error) error {
	if errors.Is(err, notes.ErrNotFound) {
		return fmt.Errorf("no note %q for %s (see 'entire note list')", key, agent)
	}
	return err
}
