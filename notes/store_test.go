package notes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// tick is a clock that advances one second per call, so that updates have
// distinct times.
func tick() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 6, 7, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
}

func openRepo(t *testing.T) (*gitrepo.Repo, string) {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return repo, dir
}

func newStore(t *testing.T, repo *gitrepo.Repo, opts ...Option) *Store {
	t.Helper()
	s, err := NewStore(context.Background(), repo, append([]Option{WithClock(tick())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSaveGetListDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, dir := openRepo(t)
	s := newStore(t, repo, WithRedact(func(v string) string { return strings.ReplaceAll(v, "hunter2", "REDACTED") }))
	if s.Agent() != DefaultAgent {
		t.Fatalf("agent %q", s.Agent())
	}
	if l, err := s.List(ctx); err != nil || l != nil {
		t.Fatalf("List on no branch = %v %v", l, err)
	}
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get missing: %v", err)
	}
	if err := s.Save(ctx, "  db-pass  ", "password is hunter2\nmore", DefaultMaxBytes, DefaultMaxCount); err != nil {
		t.Fatal(err)
	}
	n, err := s.Get(ctx, "db-pass")
	if err != nil || n.Content != "password is REDACTED\nmore" || n.Preview != "password is REDACTED" || n.InContext || !n.CreatedAt.Equal(n.UpdatedAt) {
		t.Fatalf("Get = %+v %v", n, err)
	}
	if out := gittest.Git(t, dir, "show", "entire/notes/v1:claude-code/db-pass.json"); strings.Contains(out, "hunter2") || !strings.Contains(out, `"pinned": false`) {
		t.Fatalf("stored blob:\n%s", out)
	}
	if err := s.Save(ctx, "second", "two", 0, 0); err != nil {
		t.Fatal(err)
	}
	l, err := s.List(ctx)
	if err != nil || len(l) != 2 || l[0].Key != "second" || l[1].Key != "db-pass" {
		t.Fatalf("List = %+v %v", l, err)
	}
	if c, _ := s.Count(ctx); c != 2 {
		t.Fatalf("Count = %d", c)
	}
	if err := s.Delete(ctx, "db-pass"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "db-pass"); err != nil {
		t.Fatalf("delete missing: %v", err)
	}
	for _, k := range []string{"../x", "a/b", "", "."} {
		if err := s.Delete(ctx, k); !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("Delete(%q) = %v", k, err)
		}
		if _, err := s.Get(ctx, k); !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("Get(%q) = %v", k, err)
		}
	}
	gittest.Fsck(t, dir)
	log := gittest.Git(t, dir, "log", "--format=%s", "entire/notes/v1")
	if log != "notes(claude-code): delete db-pass\nnotes(claude-code): save second\nnotes(claude-code): save db-pass" {
		t.Fatalf("git log:\n%s", log)
	}
}

func TestSaveQuotas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, _ := openRepo(t)
	s := newStore(t, repo)
	tests := []struct {
		name    string
		key     string
		content string
		want    error
	}{
		{"fill 1", "a", "x", nil},
		{"fill 2", "b", "x", nil},
		{"new key past the count cap", "c", "x", ErrTooManyNotes},
		{"update existing key at the cap", "a", "updated", nil},
		{"oversize new key: size checked before count", "d", strings.Repeat("x", 11), ErrNoteTooLarge},
		{"oversize update", "a", strings.Repeat("x", 11), ErrNoteTooLarge},
		{"exactly the byte cap", "b", strings.Repeat("x", 10), nil},
		{"invalid key", "Bad Key", "x", ErrInvalidKey},
	}
	for _, tt := range tests {
		err := s.Save(ctx, tt.key, tt.content, 10, 2)
		if !errors.Is(err, tt.want) {
			t.Fatalf("%s: Save = %v, want %v", tt.name, err, tt.want)
		}
	}
	if err := s.Save(ctx, "c", "x", 10, 2); err == nil || err.Error() != "note count would exceed cap: 2 notes already stored (cap 2)" {
		t.Fatalf("count message: %v", err)
	}
	if err := s.Save(ctx, "c", strings.Repeat("x", 11), 10, 2); err == nil || err.Error() != "note content exceeds size cap: 11 > 10 bytes" {
		t.Fatalf("size message: %v", err)
	}
	if n, _ := s.Get(ctx, "a"); n.Content != "updated" {
		t.Fatalf("update at cap lost: %+v", n)
	}
}

func TestPinKeptAcrossOverwrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, _ := openRepo(t)
	s := newStore(t, repo)
	if err := s.SetInContext(ctx, "nope", true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("pin missing: %v", err)
	}
	_ = s.Save(ctx, "a", "first", 0, 0)
	_ = s.Save(ctx, "b", "other", 0, 0)
	before, _ := s.Get(ctx, "a")
	if err := s.SetInContext(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.List(ctx); l[0].Key != "a" {
		t.Fatal("pinning must bump the note to the top")
	}
	if err := s.Save(ctx, "a", "second", 0, 0); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Get(ctx, "a")
	if !after.InContext || !after.CreatedAt.Equal(before.CreatedAt) || !after.UpdatedAt.After(before.UpdatedAt) || after.Content != "second" {
		t.Fatalf("after overwrite %+v (before %+v)", after, before)
	}
	pinned, _ := s.ListInContext(ctx)
	if len(pinned) != 1 || pinned[0].Key != "a" {
		t.Fatalf("ListInContext = %+v", pinned)
	}
	// Unpinning an unpinned note still succeeds and bumps UpdatedAt.
	if err := s.SetInContext(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.List(ctx); l[0].Key != "b" {
		t.Fatal("unpin must bump the note to the top")
	}
}

func TestAgentsAreSeparate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, dir := openRepo(t)
	cc := newStore(t, repo)
	gem := newStore(t, repo, WithAgent("gemini"))
	_ = cc.Save(ctx, "k", "claude", 0, 0)
	_ = gem.Save(ctx, "k", "gemini", 0, 0)
	if n, _ := cc.Get(ctx, "k"); n.Content != "claude" {
		t.Fatalf("claude-code sees %q", n.Content)
	}
	if n, _ := gem.Get(ctx, "k"); n.Content != "gemini" {
		t.Fatalf("gemini sees %q", n.Content)
	}
	if _, err := NewStore(ctx, repo, WithAgent("../evil")); !errors.Is(err, ErrInvalidAgent) {
		t.Fatalf("bad agent: %v", err)
	}
	gittest.Fsck(t, dir)
}

func TestTreeHashAndRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, dir := openRepo(t)
	s := newStore(t, repo)
	if h, err := s.TreeHash(ctx); err != nil || !h.IsZero() {
		t.Fatalf("TreeHash with no notes = %s %v", h, err)
	}
	_ = s.Save(ctx, "a", "one", 0, 0)
	_ = s.Save(ctx, "b", "two", 0, 0)
	snap, err := s.TreeHash(ctx)
	if err != nil || snap.IsZero() {
		t.Fatal(err)
	}
	if got := gittest.Git(t, dir, "rev-parse", "entire/notes/v1:claude-code"); got != snap.String() {
		t.Fatalf("TreeHash %s, git says %s", snap, got)
	}
	_ = s.Save(ctx, "a", "changed", 0, 0)
	_ = s.Delete(ctx, "b")
	_ = s.Save(ctx, "c", "new", 0, 0)
	if err := s.Restore(ctx, snap); err != nil {
		t.Fatal(err)
	}
	l, _ := s.List(ctx)
	if len(l) != 2 || l[0].Content != "two" && l[1].Content != "two" {
		t.Fatalf("after restore: %+v", l)
	}
	if a, _ := s.Get(ctx, "a"); a.Content != "one" {
		t.Fatalf("a = %q", a.Content)
	}
	if h, _ := s.TreeHash(ctx); h != snap {
		t.Fatal("restored tree is not the snapshot tree")
	}
	if err := s.Restore(ctx, plumbing.ZeroHash); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Count(ctx); c != 0 {
		t.Fatalf("Restore(zero) left %d notes", c)
	}
	if err := s.Restore(ctx, plumbing.NewHash("1234567890123456789012345678901234567890")); err == nil {
		t.Fatal("restore of a missing tree succeeded")
	}
	gittest.Fsck(t, dir)
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, dir := openRepo(t)
	// Two stores over two separately opened repos, like two processes.
	repo2, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	writers := []*Store{newStore(t, repo), newStore(t, repo2)}
	const each = 15
	var wg sync.WaitGroup
	for w, s := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := s.Save(ctx, fmt.Sprintf("w%d-%02d", w, i), "x", 0, 0); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if c, _ := writers[0].Count(ctx); c != 2*each {
		t.Fatalf("Count = %d, want %d", c, 2*each)
	}
	// The count cap holds across concurrent writers too.
	repo3, _ := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	capped := []*Store{newStore(t, repo, WithAgent("gemini")), newStore(t, repo3, WithAgent("gemini"))}
	for w, s := range capped {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_ = s.Save(ctx, fmt.Sprintf("w%d-%02d", w, i), "x", 0, 20)
			}
		}()
	}
	wg.Wait()
	if c, _ := capped[0].Count(ctx); c != 20 {
		t.Fatalf("capped Count = %d, want 20", c)
	}
	gittest.Fsck(t, dir)
	if n := gittest.Git(t, dir, "rev-list", "--count", "entire/notes/v1"); n != "50" {
		t.Fatalf("commits = %s", n)
	}
}

func BenchmarkSaveAtQuota(b *testing.B) {
	dir := gittest.InitWithCommit(b)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s, _ := NewStore(ctx, repo)
	for i := range DefaultMaxCount {
		if err := s.Save(ctx, fmt.Sprintf("k%02d", i), strings.Repeat("x", 1000), DefaultMaxBytes, DefaultMaxCount); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; b.Loop(); i++ {
		if err := s.Save(ctx, "k00", fmt.Sprintf("v%d", i), DefaultMaxBytes, DefaultMaxCount); err != nil {
			b.Fatal(err)
		}
	}
}
