package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/notes"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures a server.
type Options struct {
	// Hides is the hide store the hide tools page through. Nil leaves the
	// hide tools out.
	Hides *hide.Store
	// Notes is the notes store (one agent namespace) of the note tools. Nil
	// leaves the note tools out.
	Notes *notes.Store
	// SessionID is the agent session the server works for. It scopes the
	// one-hide fallback of a missing or unknown hide_id to that session's
	// hides; "" disables the fallback.
	SessionID string
	// PageSize is the hide page size in bytes; 0 or less means
	// hide.DefaultPageSize.
	PageSize int
	// MaxNoteBytes and MaxNoteCount are the note quotas; 0 means
	// notes.DefaultMaxBytes / notes.DefaultMaxCount, negative disables.
	MaxNoteBytes int
	MaxNoteCount int
	// Version is reported as the server implementation's version.
	Version string
}

// Tool names served besides hide.ToolDefs.
const (
	ToolNoteSave   = "note_save"
	ToolNoteList   = "note_list"
	ToolNoteShow   = "note_show"
	ToolNoteDelete = "note_delete"
	ToolNotePin    = "note_pin"
	ToolNoteUnpin  = "note_unpin"
)

// New returns an MCP server named "entire" with the tools opts allows: the
// three hide tools, in hide.ToolDefs order, then the six note tools.
func New(opts Options) *mcp.Server {
	if opts.MaxNoteBytes == 0 {
		opts.MaxNoteBytes = notes.DefaultMaxBytes
	}
	if opts.MaxNoteCount == 0 {
		opts.MaxNoteCount = notes.DefaultMaxCount
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "entire", Version: version}, nil)
	t := &tools{opts: opts}
	for _, d := range t.defs() {
		srv.AddTool(&mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: d.Parameters}, t.handler(d.Name))
	}
	return srv
}

// Run serves opts's tools on the stream pair (newline-delimited JSON-RPC,
// as over stdio) until the client disconnects or ctx ends.
func Run(ctx context.Context, opts Options, in io.ReadCloser, out io.WriteCloser) error {
	return New(opts).Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
}

// ToolDefs returns the definitions of every tool a server with both stores
// offers, in order. The note tools have Type "notes".
func ToolDefs() []hide.ToolDefinition {
	return append(hide.ToolDefs(), noteToolDefs()...)
}

type tools struct{ opts Options }

func (t *tools) defs() []hide.ToolDefinition {
	var out []hide.ToolDefinition
	if t.opts.Hides != nil {
		out = append(out, hide.ToolDefs()...)
	}
	if t.opts.Notes != nil {
		out = append(out, noteToolDefs()...)
	}
	return out
}

func noteToolDefs() []hide.ToolDefinition {
	key := map[string]any{"type": "string", "description": "The note key: lowercase letters, digits, '_' and '-', starting with a letter or digit, at most 64 characters (e.g. k8s-cluster)."}
	keyOnly := func() map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{"key": key}, "required": []string{"key"}}
	}
	def := func(name, desc string, params map[string]any) hide.ToolDefinition {
		return hide.ToolDefinition{Name: name, Type: "notes", Description: desc, Parameters: params}
	}
	return []hide.ToolDefinition{
		def(ToolNoteSave, "Save a durable note under a key, replacing any note with that key. Notes persist across sessions: use them for facts the user expects you to remember.",
			map[string]any{"type": "object", "properties": map[string]any{
				"key":     key,
				"content": map[string]any{"type": "string", "description": "The note's full text."},
			}, "required": []string{"key", "content"}}),
		def(ToolNoteList, "List all notes with their key, age and a one-line preview, most recently updated first.",
			map[string]any{"type": "object", "properties": map[string]any{}}),
		def(ToolNoteShow, "Show the full content of one note.", keyOnly()),
		def(ToolNoteDelete, "Delete a note.", keyOnly()),
		def(ToolNotePin, "Pin a note so that its full content is part of your context on every step.", keyOnly()),
		def(ToolNoteUnpin, "Unpin a note; it stays saved.", keyOnly()),
	}
}

// handler adapts the tool name to the SDK: arguments decoded from JSON, a
// text result, IsError for failures the model should see.
func (t *tools) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := map[string]any{}
		if raw := req.Params.Arguments; len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&args); err != nil {
				return textResult(fmt.Sprintf("invalid arguments: %v", err), true), nil
			}
		}
		text, isErr := t.call(ctx, name, args)
		return textResult(text, isErr), nil
	}
}

func textResult(text string, isErr bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isErr}
}

// call runs tool name with decoded arguments and returns the text for the
// model and whether it reports an error.
func (t *tools) call(ctx context.Context, name string, args map[string]any) (string, bool) {
	switch name {
	case hide.ToolNext, hide.ToolJump, hide.ToolSearch:
		return t.hideTool(name, args)
	case ToolNoteSave, ToolNoteList, ToolNoteShow, ToolNoteDelete, ToolNotePin, ToolNoteUnpin:
		return t.noteTool(ctx, name, args)
	}
	return fmt.Sprintf("unknown tool %q", name), true
}

// stringArg returns args[name] as a string ("" when absent or not a string).
func stringArg(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

// intArg returns args[name] as an integer: JSON numbers that are integral,
// and numeric strings.
func intArg(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<31 {
			return int(v), true
		}
	case json.Number:
		if n, err := strconv.Atoi(v.String()); err == nil {
			return n, true
		}
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<31 {
			return int(f), true
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n, true
		}
	}
	return 0, false
}
