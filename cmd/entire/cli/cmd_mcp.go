package cli

import (
	"context"
	"errors"
	"io"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/cmd/entire/mcpserver"
	"github.com/spf13/cobra"
)

// mcpOptions are the dependencies and flags of `entire mcp`.
type mcpOptions struct {
	f *factory

	Agent   string // notes namespace; "" = the current session's agent, else claude-code
	Session string // session whose hides the one-hide fallback may pick
}

// newMCPCmd builds `entire mcp`. runF, when not nil, replaces runMCP (tests
// of flag parsing).
func newMCPCmd(f *factory, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	if runF == nil {
		runF = runMCP
	}
	opts := &mcpOptions{f: f}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the hide and note tools to an agent over MCP on stdio",
		Long: `Runs a Model Context Protocol server on standard input and output for the
repository that contains the working directory. It offers the tools
hide_next, hide_jump, hide_search, note_save, note_show, note_list,
note_delete, note_pin and note_unpin. Agents start it; people rarely need to.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runF(c.Context(), opts) },
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "agent whose notes the note tools use (default: the current session's agent, else "+string(agent.DefaultAgentName)+")")
	cmd.Flags().StringVar(&opts.Session, "session", "", "session `ID` whose single hide a missing hide_id falls back to")
	return cmd
}

// runMCP serves until the client closes standard input.
func runMCP(ctx context.Context, opts *mcpOptions) error {
	repo, err := opts.f.OpenRepo()
	if err != nil {
		return err
	}
	ns, err := openNotesStore(ctx, opts.f, repo, opts.Agent)
	if err != nil {
		return err
	}
	srvOpts := mcpserver.Options{
		Hides:     openHideStore(opts.f, repo),
		Notes:     ns,
		SessionID: mcpSession(opts),
		Version:   version,
	}
	err = mcpserver.Run(ctx, srvOpts, io.NopCloser(opts.f.IO.In), nopWriteCloser{opts.f.IO.Out})
	if errors.Is(err, io.EOF) {
		return nil // the client closed standard input: a normal end
	}
	return err
}

// mcpSession returns the session whose hides the one-hide fallback may
// pick: --session, else the session ID the agent that started the server
// gives it in its environment (agent.SessionIDFromEnv), else the current
// session of the work tree.
func mcpSession(opts *mcpOptions) string {
	if opts.Session != "" {
		return opts.Session
	}
	if id := agent.SessionIDFromEnv(opts.f.Getenv); id != "" {
		return id
	}
	if s := currentSession(opts.f); s != nil {
		return s.SessionID
	}
	return ""
}

// nopWriteCloser lets the server "close" a stream it does not own.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
