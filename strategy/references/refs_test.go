package references

import (
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/entirecli/entire/renderrefs"
)

func ref(typ, id, title string) renderrefs.Reference {
	r := renderrefs.Reference{V: 1, Type: typ, ID: id}
	if title != "" {
		r.Preview = &renderrefs.Preview{Title: title}
	}
	return r
}

func TestMergeKeepsFirst(t *testing.T) {
	t.Parallel()
	got := Merge(
		[]renderrefs.Reference{ref("note", "a", "first"), ref("checkpoint", "a", "")},
		[]renderrefs.Reference{ref("note", "a", "second"), {Type: "note"}, ref("note", "b", "")},
	)
	want := []renderrefs.Reference{ref("note", "a", "first"), ref("checkpoint", "a", ""), ref("note", "b", "")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %+v", got)
	}
	if Merge(nil, nil) != nil {
		t.Errorf("Merge of nothing is not nil")
	}
}

func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	refs := []renderrefs.Reference{ref("note", "a", "t"), ref("hide", "h1", "")}
	b, err := Encode(refs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil || !reflect.DeepEqual(got, refs) {
		t.Errorf("round trip = %+v, %v", got, err)
	}
	if b, _ := Encode(nil); string(b) != "[]\n" {
		t.Errorf("Encode(nil) = %q", b)
	}
	if _, err := Decode([]byte("{")); err == nil {
		t.Errorf("corrupt file decoded")
	}
}

func TestPending(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if got, err := ReadPending(root, "s1"); got != nil || err != nil {
		t.Fatalf("empty pending = %v, %v", got, err)
	}
	if err := AddPending(root, "s1", []renderrefs.Reference{ref("note", "a", "one")}); err != nil {
		t.Fatal(err)
	}
	if err := AddPending(root, "s1", []renderrefs.Reference{ref("note", "a", "two"), ref("note", "b", "")}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPending(root, "s1")
	if err != nil || len(got) != 2 || got[0].Preview.Title != "one" {
		t.Errorf("pending = %+v, %v", got, err)
	}
	if err := AddPending(root, "../x", []renderrefs.Reference{ref("note", "a", "")}); err == nil {
		t.Errorf("invalid session ID accepted")
	}
	if err := RemovePending(root, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(PendingPath(root, "s1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pending file left: %v", err)
	}
	if err := RemovePending(root, "s1"); err != nil {
		t.Errorf("second remove: %v", err)
	}
}
