package commands

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP server as an agent starts it: a subprocess speaking stdio, its
// hide and note tools listed and called.
func TestMCPSubprocess(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	h, err := hide.NewStore(repo).Put("fetch", "fetch", []byte(strings.Repeat("x", hide.DefaultPageSize)+"second page with Needle"), map[string]string{hide.MetaSessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(e2etest.EntireBin(), "mcp", "--agent", "gemini", "--session", "s1")
	cmd.Dir = dir
	cmd.Env = append(gittest.Env(t.TempDir()), e2etest.ProgramEnv(t)...)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	wantTools := []string{"hide_next", "hide_jump", "hide_search", "note_save", "note_list", "note_show", "note_delete", "note_pin", "note_unpin"}
	if strings.Join(slices.Sorted(slices.Values(names)), ",") != strings.Join(slices.Sorted(slices.Values(wantTools)), ",") {
		t.Fatalf("tools = %v", names)
	}

	calls := []struct {
		name string
		args map[string]any
		want string // substring
	}{
		{"hide_jump", map[string]any{"hide_id": h.ID, "page": 1}, "[HIDE id=" + h.ID + " source=fetch page=1/2 bytes=3800]"},
		{"hide_next", map[string]any{"hide_id": h.ID, "current_page": 1}, "second page with Needle\n[END page 2/2]"},
		{"hide_search", map[string]any{"hide_id": "", "query": "needle"}, "page=2/2"}, // one-hide fallback of session s1
		{"note_save", map[string]any{"key": "k8s", "content": "homelab cluster"}, `saved (new key "k8s")`},
		{"note_list", map[string]any{}, "| `k8s` |"},
		{"note_show", map[string]any{"key": "k8s"}, "homelab cluster"},
		{"note_pin", map[string]any{"key": "k8s"}, `pinned "k8s"`},
		{"note_unpin", map[string]any{"key": "k8s"}, `unpinned "k8s"`},
		{"note_delete", map[string]any{"key": "k8s"}, `deleted "k8s"`},
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError || !strings.Contains(text, c.want) {
			t.Fatalf("%s = %q (isError %v), want %q", c.name, text, res.IsError, c.want)
		}
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	// The notes went to the gemini namespace, as commits git can read.
	log := gittest.Git(t, dir, "log", "--format=%s", "entire/notes/v1")
	if !strings.HasPrefix(log, "notes(gemini): delete k8s") {
		t.Fatalf("git log:\n%s", log)
	}
	gittest.Fsck(t, dir)
}
