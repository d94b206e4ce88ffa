package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/notes"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type fixture struct {
	hides *hide.Store
	notes *notes.Store
	cs    *mcp.ClientSession
}

func setup(t *testing.T, session string) *fixture {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hs := hide.NewStore(repo)
	ns, err := notes.NewStore(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{Hides: hs, Notes: ns, SessionID: session, PageSize: 10, MaxNoteBytes: 20, MaxNoteCount: 3})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &fixture{hides: hs, notes: ns, cs: cs}
}

func (f *fixture) call(t *testing.T, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", name, len(res.Content))
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func TestListTools(t *testing.T) {
	t.Parallel()
	f := setup(t, "")
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	want := "hide_next,hide_jump,hide_search,note_save,note_list,note_show,note_delete,note_pin,note_unpin"
	got := map[string]bool{}
	for _, n := range names {
		got[n] = true
	}
	for _, n := range strings.Split(want, ",") {
		if !got[n] {
			t.Fatalf("tools %v lack %s", names, n)
		}
	}
	if len(ToolDefs()) != 9 {
		t.Fatalf("ToolDefs has %d", len(ToolDefs()))
	}
}

func TestHideTools(t *testing.T) {
	t.Parallel()
	f := setup(t, "s1")
	e, err := f.hides.Put("fetch", "fetch", []byte("0123456789abcdefghijKLMNOPQRST"), map[string]string{hide.MetaSessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := f.hides.Put("other", "other", []byte("x"), map[string]string{hide.MetaSessionID: "s2"})
	tests := []struct {
		name   string
		args   map[string]any
		isErr  bool
		substr string
	}{
		{"hide_next", map[string]any{"hide_id": e.ID, "current_page": 1}, false, "page=2/3 bytes=10]\n"},
		{"hide_next", map[string]any{"hide_id": e.ID, "current_page": "2"}, false, "KLMNOPQRST\n[END page 3/3]"},
		{"hide_next", map[string]any{"hide_id": e.ID, "current_page": 3}, true, "out of range [1,3]"},
		{"hide_next", map[string]any{"hide_id": e.ID, "current_page": 0}, true, "current_page >= 1"},
		{"hide_next", map[string]any{"hide_id": e.ID, "current_page": 1.5}, true, "current_page >= 1"},
		{"hide_jump", map[string]any{"hide_id": e.ID, "page": 3}, false, "This is the complete content"},
		{"hide_jump", map[string]any{"hide_id": e.ID, "page": 0}, true, "page >= 1"},
		{"hide_search", map[string]any{"hide_id": e.ID, "query": "jklm"}, false, "page=2/3"}, // straddles pages 2 and 3
		{"hide_search", map[string]any{"hide_id": e.ID, "query": "pqr"}, false, "page=3/3"},
		// One-hide fallback: s1 made exactly one hide.
		{"hide_jump", map[string]any{"hide_id": "hide_made_up", "page": 1}, false, "id=" + e.ID},
		{"hide_jump", map[string]any{"page": 1}, false, "id=" + e.ID},
		// Another session's hide is reachable by its exact ID only.
		{"hide_jump", map[string]any{"hide_id": other.ID, "page": 1}, false, "id=" + other.ID},
		{"hide_jump", map[string]any{"hide_id": "../../etc", "page": 1}, false, "id=" + e.ID},
	}
	for i, tt := range tests {
		text, isErr := f.call(t, tt.name, tt.args)
		if isErr != tt.isErr || !strings.Contains(text, tt.substr) {
			t.Errorf("%d %s(%v) = %q (isError %v), want %q", i, tt.name, tt.args, text, isErr, tt.substr)
		}
	}
}

func TestHideToolsWithoutSession(t *testing.T) {
	t.Parallel()
	f := setup(t, "")
	_, _ = f.hides.Put("fetch", "fetch", []byte("x"), nil)
	if text, isErr := f.call(t, "hide_jump", map[string]any{"page": 1}); !isErr || text != "hide tool requires hide_id" {
		t.Fatalf("got %q %v", text, isErr)
	}
	if text, isErr := f.call(t, "hide_jump", map[string]any{"hide_id": "hide_x", "page": 1}); !isErr || text != `hide tool unknown hide id "hide_x"` {
		t.Fatalf("got %q %v", text, isErr)
	}
}

func TestNoteTools(t *testing.T) {
	t.Parallel()
	f := setup(t, "")
	steps := []struct {
		name  string
		args  map[string]any
		want  string
		isErr bool
	}{
		{"note_list", nil, "No notes stored.\n", false},
		{"note_show", map[string]any{"key": "nope"}, `no note named "nope" (no notes stored)`, true},
		{"note_save", map[string]any{"key": "", "content": "x"}, "key is required (e.g. note_save k8s-cluster ...)", true},
		{"note_show", map[string]any{"key": " "}, "key is required (e.g. note_show k8s-cluster)", true},
		{"note_save", map[string]any{"key": "k8s", "content": "cluster a"}, `saved (new key "k8s")`, false},
		{"note_save", map[string]any{"key": " k8s ", "content": "cluster b"}, `saved (overwrote prior version of "k8s")`, false},
		{"note_save", map[string]any{"key": "Bad", "content": "x"}, `invalid note key: "Bad" (expected [a-z0-9][a-z0-9_-]{0,63})`, true},
		{"note_save", map[string]any{"key": "big", "content": strings.Repeat("x", 21)}, "note content exceeds size cap: 21 > 20 bytes", true},
		{"note_show", map[string]any{"key": "k8s"}, "cluster b", false},
		{"note_pin", map[string]any{"key": "k8s"}, `pinned "k8s" (now in system prompt on every step)`, false},
		{"note_unpin", map[string]any{"key": "k8s"}, `unpinned "k8s" (no longer in system prompt)`, false},
		{"note_pin", map[string]any{"key": "nope"}, `no note named "nope"; stored: k8s`, true},
		{"note_save", map[string]any{"key": "b", "content": "x"}, `saved (new key "b")`, false},
		{"note_save", map[string]any{"key": "c", "content": "x"}, `saved (new key "c")`, false},
		{"note_save", map[string]any{"key": "d", "content": "x"}, "note count would exceed cap: 3 notes already stored (cap 3)", true},
		{"note_delete", map[string]any{"key": "c"}, `deleted "c"`, false},
		{"note_delete", map[string]any{"key": "c"}, `no note named "c" (already absent)`, false},
	}
	for i, s := range steps {
		text, isErr := f.call(t, s.name, s.args)
		if text != s.want || isErr != s.isErr {
			t.Fatalf("step %d %s(%v) = %q (isError %v), want %q (%v)", i, s.name, s.args, text, isErr, s.want, s.isErr)
		}
	}
	text, _ := f.call(t, "note_list", nil)
	if !strings.HasPrefix(text, "## Notes\n") || !strings.Contains(text, "| `k8s` | just now | cluster b |") {
		t.Fatalf("note_list:\n%s", text)
	}
}

func TestMissingHintCapsKeys(t *testing.T) {
	t.Parallel()
	f := setup(t, "")
	ctx := context.Background()
	for i := range 23 {
		if err := f.notes.Save(ctx, fmt.Sprintf("k%02d", i), "x", 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	text, isErr := f.call(t, "note_show", map[string]any{"key": "zz"})
	if !isErr || !strings.HasSuffix(text, " (+3 more \u2014 use note_list to see all)") || strings.Count(text, ", ") != 19 {
		t.Fatalf("hint %q", text)
	}
}

func TestIntArg(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    any
		want int
		ok   bool
	}{{3, 3, true}, {int64(4), 4, true}, {5.0, 5, true}, {5.5, 0, false}, {"6", 6, true}, {"x", 0, false}, {nil, 0, false}, {true, 0, false}}
	for _, tt := range tests {
		got, ok := intArg(map[string]any{"n": tt.v}, "n")
		if got != tt.want || ok != tt.ok {
			t.Errorf("intArg(%v) = %d %v", tt.v, got, ok)
		}
	}
}
