package translog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func prefix(hash string, offset int64) Prefix {
	return Prefix{ContentHash: hash, Offset: offset, SHA256: strings.Repeat("a", 64)}
}

// FindPrefix returns the newest record of a content hash (and offset),
// skipping lines that do not decode.
func TestFindPrefix(t *testing.T) {
	t.Parallel()
	l := New(t.TempDir(), "s1")
	for _, p := range []Prefix{prefix("sha256:one", 10), prefix("sha256:two", 20), prefix("sha256:one", 30)} {
		if err := l.AddPrefix(p, false); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(l.path(prefixKind), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"content_hash\":\"sha256:one\",garbage\n")
	f.Close()
	if p, ok := l.FindPrefix("sha256:one", -1); !ok || p.Offset != 30 {
		t.Errorf("newest of one = %+v %v", p, ok)
	}
	if p, ok := l.FindPrefix("sha256:one", 10); !ok || p.Offset != 10 {
		t.Errorf("one at 10 = %+v %v", p, ok)
	}
	if _, ok := l.FindPrefix("sha256:three", -1); ok {
		t.Error("found a record never added")
	}
	if err := l.AddPrefix(prefix("sha256:four", 1), true); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.FindPrefix("sha256:one", -1); ok {
		t.Error("a reset kept the older records")
	}
}

// A line left without its newline by a killed hook costs only that line:
// the next append starts a line of its own.
func TestAppendAfterTornLine(t *testing.T) {
	t.Parallel()
	l := New(t.TempDir(), "s1")
	if err := l.AddBatch(Batch{From: 0, To: 2, Offset: 10, Records: json.RawMessage(`[]`)}, true); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.path(batchKind), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"from":2,"to":`)
	f.Close()
	if err := l.AddBatch(Batch{From: 2, To: 3, Offset: 15, Records: json.RawMessage(`[]`)}, false); err != nil {
		t.Fatal(err)
	}
	bs, err := l.Batches()
	if err != nil || len(bs) != 2 || bs[1].From != 2 || bs[1].To != 3 {
		t.Fatalf("batches after a torn line = %+v, %v", bs, err)
	}
	if _, ok := Contiguous(bs, 0, 3, 15); !ok {
		t.Error("the batches around a torn line are not contiguous")
	}
}

// Contiguous accepts batches that cover the stored lines from the scope
// on without a gap, and CutBatches keeps those a rewind's cut leaves.
func TestContiguousAndCut(t *testing.T) {
	t.Parallel()
	l := New(t.TempDir(), "s1")
	for i, b := range []Batch{{From: 0, To: 2, Offset: 10}, {From: 2, To: 5, Offset: 30}, {From: 5, To: 6, Offset: 40}} {
		b.Records = json.RawMessage(`[]`)
		if err := l.AddBatch(b, i == 0); err != nil {
			t.Fatal(err)
		}
	}
	bs, _ := l.Batches()
	if raws, ok := Contiguous(bs, 2, 6, 40); !ok || len(raws) != 3 {
		t.Errorf("Contiguous = %d, %v", len(raws), ok)
	}
	for _, c := range []struct {
		start, to int
		offset    int64
	}{{0, 6, 41}, {0, 7, 40}} {
		if _, ok := Contiguous(bs, c.start, c.to, c.offset); ok {
			t.Errorf("Contiguous(%d, %d, %d) accepted", c.start, c.to, c.offset)
		}
	}
	if _, ok := Contiguous(append(bs[:1:1], bs[2]), 0, 6, 40); ok {
		t.Error("a gap is contiguous")
	}
	if err := l.CutBatches(5, 30); err != nil {
		t.Fatal(err)
	}
	if bs, _ := l.Batches(); len(bs) != 2 || bs[1].To != 5 {
		t.Errorf("after a cut at line 5: %+v", bs)
	}
	if err := l.CutBatches(4, 25); err != nil {
		t.Fatal(err)
	}
	if bs, _ := l.Batches(); len(bs) != 0 {
		t.Errorf("a cut inside a batch kept %+v", bs)
	}
}

// A log at its bound takes no more lines; Remove deletes both logs.
func TestBoundAndRemove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := New(dir, "s1")
	if err := l.AddPrefix(prefix("sha256:one", 1), false); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(l.path(prefixKind), maxLog); err != nil {
		t.Fatal(err)
	}
	if err := l.AddPrefix(prefix("sha256:two", 2), false); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(l.path(prefixKind)); fi.Size() != maxLog {
		t.Errorf("a full log grew to %d", fi.Size())
	}
	if err := l.Remove(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, DirName)); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
	if err := l.Remove(); err != nil {
		t.Errorf("removing missing logs: %v", err)
	}
}
