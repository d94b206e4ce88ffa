package explain

import (
	"context"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/renderrefs"
)

func ref(typ, id, title string) renderrefs.Reference {
	r := renderrefs.Reference{V: 1, Type: typ, ID: id}
	if title != "" {
		r.Preview = &renderrefs.Preview{Title: title}
	}
	return r
}

func TestCard(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := notes.NewStore(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(ctx, "proj-layout", "Layout: cmd/ and pkg/\nmore", notes.DefaultMaxBytes, notes.DefaultMaxCount); err != nil {
		t.Fatal(err)
	}
	lookup := NewLookup(ctx, repo)
	tests := []struct {
		ref    renderrefs.Reference
		lookup Lookup
		want   string
	}{
		{ref("note", "proj-layout", "stale title"), lookup, "[note proj-layout] Layout: cmd/ and pkg/"},
		{ref("note", "gone-note", "old"), lookup, "[note gone-note] (gone: the note no longer exists)"},
		{ref("checkpoint", "a3b2c4d5e6f7", ""), lookup, "[checkpoint a3b2c4d5e6f7] (gone: the checkpoint no longer exists)"},
		{ref("hide", "nope", ""), lookup, "[hide nope] (gone: the hide no longer exists)"},
		{ref("undo_point", "u1", "Before rewind\nx"), lookup, "[undo_point u1] Before rewind (preview)"},
		{ref("undo_point", "u1", ""), nil, "[undo_point u1]"},
	}
	for _, tt := range tests {
		if got := Card(tt.ref, tt.lookup); got != tt.want {
			t.Errorf("Card(%s %s) = %q, want %q", tt.ref.Type, tt.ref.ID, got, tt.want)
		}
	}
}
