package hide

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func newTestStore(t testing.TB, opts ...Option) (*Store, string) {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return NewStore(repo, opts...), dir
}

func TestStorePutGetCutDelete(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 6, 7, 14, 12, 0, 0, time.UTC)
	s, dir := newTestStore(t, WithClock(func() time.Time { return clock }),
		WithRedact(func(v string) string { return strings.ReplaceAll(v, "sekrit", "REDACTED") }))

	e, err := s.Put("github.pr_review_thread", "fetch", []byte("0123456789 sekrit"), map[string]string{"k": "v sekrit", MetaSessionID: "sess-1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.ID, "hide_github_pr_review_thread_20260607_1412_") || e.SessionID != "sess-1" || e.Metadata["k"] != "v REDACTED" {
		t.Fatalf("entry %+v", e)
	}
	got, content, err := s.Get(e.ID)
	if err != nil || string(content) != "0123456789 REDACTED" || got.SizeBytes != int64(len(content)) || got.CreatedAt != clock.Unix() {
		t.Fatalf("Get = %+v %q %v", got, content, err)
	}
	if out := gittest.Git(t, dir, "show", "entire/hides/v1:"+e.ID+"/content"); strings.Contains(out, "sekrit") {
		t.Fatal("unredacted content in git")
	}
	c, err := s.Cut(e.ID, 2, 8)
	if err != nil || c.Content != "89 REDAC" || c.TotalPages != 3 || c.Source != "fetch" || c.IsFinal {
		t.Fatalf("Cut = %+v %v", c, err)
	}
	for _, p := range []int{0, 4} {
		if _, err := s.Cut(e.ID, p, 8); !errors.Is(err, ErrPageOutOfRange) {
			t.Fatalf("page %d: %v", p, err)
		}
	}
	if c, found, err := s.Search(e.ID, "redacted", 8); err != nil || !found || c.PageNumber != 2 {
		t.Fatalf("Search = %+v %v %v", c, found, err)
	}
	for _, id := range []string{".", "..", "a/b", ""} {
		if err := s.Delete(id); !errors.Is(err, ErrInvalidID) {
			t.Fatalf("Delete(%q) = %v", id, err)
		}
		if _, _, err := s.Get(id); !errors.Is(err, ErrInvalidID) {
			t.Fatalf("Get(%q) = %v", id, err)
		}
	}
	if _, _, err := s.Get("hide_missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get missing: %v", err)
	}
	if err := s.Delete(e.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(e.ID); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	if _, _, err := s.Get(e.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	gittest.Fsck(t, dir)
	if log := gittest.Git(t, dir, "log", "--format=%s", "entire/hides/v1"); log != "hide: delete "+e.ID+"\nhide: store "+e.ID {
		t.Fatalf("log:\n%s", log)
	}
}

func TestStoreEmptyContentAndList(t *testing.T) {
	t.Parallel()
	now := time.Unix(1700000000, 0)
	s, dir := newTestStore(t, WithClock(func() time.Time { now = now.Add(time.Second); return now }))
	if l, err := s.List(); err != nil || l != nil {
		t.Fatalf("List on no branch = %v %v", l, err)
	}
	a, err := s.Put("k", "src", nil, map[string]string{MetaSessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Cut(a.ID, 1, 0)
	if err != nil || c.TotalPages != 1 || !c.IsFinal || c.Content != "" {
		t.Fatalf("empty Cut = %+v %v", c, err)
	}
	b, _ := s.Put("k", "src", []byte("x"), map[string]string{MetaSessionID: "s2"})
	c2, _ := s.Put("k", "src", []byte("y"), map[string]string{MetaSessionID: "s2"})
	l, err := s.List()
	if err != nil || len(l) != 3 || l[0].ID != c2.ID || l[2].ID != a.ID {
		t.Fatalf("List = %+v %v", l, err)
	}
	if ids, _ := s.SessionHides("s2"); len(ids) != 2 || ids[0] != b.ID || ids[1] != c2.ID {
		t.Fatalf("SessionHides = %v", ids)
	}
	// ResolveID: exact, one-hide fallback within the session only.
	tests := []struct {
		session, id, want string
		ok                bool
	}{
		{"", b.ID, b.ID, true},
		{"s1", "hallucinated", a.ID, true},
		{"s1", "", a.ID, true},
		{"s2", "hallucinated", "", false}, // two hides in s2
		{"", "hallucinated", "", false},
		{"s3", "hallucinated", "", false}, // s3 made none; other sessions' hides are not reachable
		{"s1", "../x", a.ID, true},
	}
	for _, tt := range tests {
		got, ok, err := s.ResolveID(tt.session, tt.id)
		if err != nil || got != tt.want || ok != tt.ok {
			t.Errorf("ResolveID(%q,%q) = %q %v %v", tt.session, tt.id, got, ok, err)
		}
	}
	buf, err := s.LoadIntoBuffer(b.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := buf.Get(b.ID); !ok || h.Content != "x" || h.Source != "src" || h.CreatedAt.Unix() != b.CreatedAt {
		t.Fatalf("LoadIntoBuffer: %+v", h)
	}
	if _, err := s.LoadIntoBuffer("hide_nope", 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LoadIntoBuffer missing: %v", err)
	}
	if tree, err := s.HideTree(a.ID); err != nil || tree.IsZero() {
		t.Fatalf("HideTree: %v", err)
	}
	gittest.Fsck(t, dir)
}

func TestStoreChunkedContentAndCache(t *testing.T) {
	t.Parallel()
	// Chunks of 1000 bytes exercise content.001...; content over 1 MiB goes
	// through the cache file and the windowed search.
	s, dir := newTestStore(t, WithChunkSize(300_000))
	size := 1<<20 + 5000
	content := bytes.Repeat([]byte("abcdefghij"), size/10)
	// A match across the first search window (1 MiB) and a page boundary.
	copy(content[1<<20-3:], "NEEDLE")
	e, err := s.Put("big", "big", content, nil)
	if err != nil {
		t.Fatal(err)
	}
	ls := gittest.Git(t, dir, "ls-tree", "--name-only", "entire/hides/v1:"+e.ID)
	if ls != "content\ncontent.001\ncontent.002\ncontent.003\nmeta.json" {
		t.Fatalf("tree:\n%s", ls)
	}
	_, got, err := s.Get(e.ID)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("Get: %v (len %d)", err, len(got))
	}
	// A copy older than the cache TTL is pruned when a new one is added.
	cacheDir := filepath.Join(dir, ".git", "entire", "hide-cache")
	stale := filepath.Join(cacheDir, "stale")
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-cacheTTL - time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	ps := 4096
	c, found, err := s.Search(e.ID, "needle", ps)
	if err != nil || !found || c.PageNumber != (1<<20-3)/ps+1 {
		t.Fatalf("Search = page %d found %v err %v", c.PageNumber, found, err)
	}
	last := TotalPages(int64(len(content)), ps)
	c, err = s.Cut(e.ID, last, ps)
	if err != nil || !c.IsFinal || c.Content != string(content[(last-1)*ps:]) {
		t.Fatalf("last page: %v", err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, ".git", "entire", "hide-cache"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache: %v %v", entries, err)
	}
	if err := s.Delete(e.ID); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".git", "entire", "hide-cache")); len(entries) != 0 {
		t.Fatalf("cache left after delete: %v", entries)
	}
	gittest.Fsck(t, dir)
}

func TestStoreConcurrentPuts(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, dir := newTestStore(t, WithClock(func() time.Time { return at }))
	const n = 12
	var wg sync.WaitGroup
	ids := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := s.Put("same", "same", []byte{byte('a' + i)}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = e.ID
		}()
	}
	wg.Wait()
	l, err := s.List()
	if err != nil || len(l) != n {
		t.Fatalf("List has %d hides, want %d: %v", len(l), n, err)
	}
	gittest.Fsck(t, dir)
}

func BenchmarkStoreCutLarge(b *testing.B) {
	s, _ := newTestStore(b)
	content := bytes.Repeat([]byte("0123456789"), 8<<20/10)
	e, err := s.Put("bench", "bench", content, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Cut(e.ID, i%2000+1, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStoreSearchLarge(b *testing.B) {
	s, _ := newTestStore(b)
	content := bytes.Repeat([]byte("0123456789"), 8<<20/10)
	copy(content[len(content)-10:], "NeedleHere")
	e, err := s.Put("bench", "bench", content, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, found, err := s.Search(e.ID, "needlehere", 0); err != nil || !found {
			b.Fatal(err)
		}
	}
}

func BenchmarkStorePut8MB(b *testing.B) {
	s, _ := newTestStore(b)
	content := bytes.Repeat([]byte("0123456789"), 8<<20/10)
	b.SetBytes(int64(len(content)))
	for i := 0; b.Loop(); i++ {
		content[0] = byte(i)
		if _, err := s.Put("bench", "bench", content, nil); err != nil {
			b.Fatal(err)
		}
	}
}
