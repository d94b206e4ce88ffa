package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Shared index files our status runs create are recorded; one of ours is
// removed as soon as the private index links to a newer one of ours, or to
// none (git wrote it whole), and a shared index
// that is not ours (the user's split index) is never touched, even when
// the user's git wrote it while our status ran.
func TestRecordSharedIndexesPrunesOnlyOurs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	list := filepath.Join(dir, "private.shared")
	write := func(name string, age time.Duration) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	linked := func(name string) func() string { return func() string { return name } }
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}

	write("sharedindex.user", time.Hour) // the user's own
	before := sharedIndexes(dir)
	write("sharedindex.ours1", time.Minute)
	recordSharedIndexes(dir, list, before, linked("sharedindex.ours1"))
	if got := readLines(list); len(got) != 1 || !got["sharedindex.ours1"] {
		t.Fatalf("recorded %v, want only sharedindex.ours1", got)
	}

	before = sharedIndexes(dir)
	write("sharedindex.ours2", 0)
	recordSharedIndexes(dir, list, before, linked("sharedindex.ours2"))
	if exists("sharedindex.ours1") {
		t.Error("the replaced shared index of ours was kept")
	}
	if !exists("sharedindex.ours2") || !exists("sharedindex.user") {
		t.Error("the newest of ours or the user's shared index was removed")
	}
	if got := readLines(list); len(got) != 1 || !got["sharedindex.ours2"] {
		t.Fatalf("recorded %v, want only sharedindex.ours2", got)
	}

	before = sharedIndexes(dir)
	write("sharedindex.ours3", -time.Second) // written just now
	write("sharedindex.user2", 0)            // by the user's git, meanwhile
	recordSharedIndexes(dir, list, before, linked("sharedindex.ours3"))
	if exists("sharedindex.ours2") || !exists("sharedindex.ours3") {
		t.Error("a replaced shared index of ours was kept, or the newest removed")
	}
	if got := readLines(list); len(got) != 1 || !got["sharedindex.ours3"] {
		t.Fatalf("recorded %v, want only sharedindex.ours3", got)
	}
	before = sharedIndexes(dir)
	write("sharedindex.ours4", -2*time.Second) // newer still
	recordSharedIndexes(dir, list, before, linked("sharedindex.ours4"))
	if !exists("sharedindex.user2") {
		t.Error("the user's shared index written during our status was removed")
	}

	// The private index written whole: none of ours is needed.
	before = sharedIndexes(dir)
	write("sharedindex.ours5", -3*time.Second)
	recordSharedIndexes(dir, list, before, linked("sharedindex.ours5"))
	recordSharedIndexes(dir, list, sharedIndexes(dir), linked(""))
	if exists("sharedindex.ours5") || len(readLines(list)) != 0 || !exists("sharedindex.user") {
		t.Errorf("after a whole private index: ours5 kept %v, recorded %v", exists("sharedindex.ours5"), readLines(list))
	}
	write("sharedindex.ours6", -4*time.Second)
	recordSharedIndexes(dir, list, map[string]bool{}, linked("sharedindex.ours6"))

	r := &Repo{GitDir: dir}
	r.RemoveSharedIndexes(filepath.Join(dir, "private"))
	if exists("sharedindex.ours6") || !exists("sharedindex.user") || !exists("sharedindex.user2") {
		t.Error("RemoveSharedIndexes must remove ours and only ours")
	}
}
