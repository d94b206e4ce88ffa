package session

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// checkIndexComplete asserts that the index itself (not Find, which would
// repair it) lists every id with the fingerprint of its file.
func checkIndexComplete(t *testing.T, s *Store, ids []string) {
	t.Helper()
	doc := s.readIndex()
	for _, id := range ids {
		e, ok := doc[id]
		if !ok {
			t.Fatalf("index lost entry %s (%d entries)", id, len(doc))
		}
		if _, err := e.entry(); err != nil {
			t.Fatalf("index entry %s: %v", id, err)
		}
		info, err := os.Lstat(s.Path(id))
		must(t, err)
		if e.fp != fingerprintOf(info) {
			t.Fatalf("index entry %s does not match its file", id)
		}
	}
	if len(doc) != len(ids) {
		t.Fatalf("index has %d entries, want %d", len(doc), len(ids))
	}
}

func TestConcurrentSavesGoroutines(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	const workers, perWorker = 8, 15
	var wg sync.WaitGroup
	var all []string
	for w := range workers {
		for i := range perWorker {
			all = append(all, fmt.Sprintf("w%d-s%d", w, i))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				id := fmt.Sprintf("w%d-s%d", w, i)
				// Save twice (update) and save+delete a scratch session.
				for _, phase := range []Phase{PhaseActive, PhaseIdle} {
					if err := s.Save(testState(id, "/w", phase)); err != nil {
						t.Error(err)
					}
				}
				scratch := fmt.Sprintf("scratch-%d-%d", w, i)
				if err := s.Save(testState(scratch, "/w", PhaseIdle)); err != nil {
					t.Error(err)
				}
				if err := s.Delete(scratch); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	checkIndexComplete(t, s, all)
}

// TestHelperProcessSave is not a test: TestConcurrentSavesProcesses runs the
// test binary with ENTIRE_SESSION_HELPER_DIR set, and this saves sessions
// from that separate process.
func TestHelperProcessSave(t *testing.T) {
	dir := os.Getenv("ENTIRE_SESSION_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	prefix := os.Getenv("ENTIRE_SESSION_HELPER_PREFIX")
	n, _ := strconv.Atoi(os.Getenv("ENTIRE_SESSION_HELPER_N"))
	s := NewStore(Options{GitCommonDir: dir, OnIndexError: func(err error) { t.Error(err) }})
	for i := range n {
		if err := s.Save(testState(fmt.Sprintf("%s-%d", prefix, i), "/w-"+prefix, PhaseActive)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConcurrentSavesProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	const procs, perProc = 4, 25
	cmds := make([]*exec.Cmd, procs)
	var all []string
	for p := range procs {
		prefix := fmt.Sprintf("p%d", p)
		for i := range perProc {
			all = append(all, fmt.Sprintf("%s-%d", prefix, i))
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessSave$", "-test.count=1")
		cmd.Env = append(os.Environ(), "ENTIRE_SESSION_HELPER_DIR="+dir,
			"ENTIRE_SESSION_HELPER_PREFIX="+prefix, "ENTIRE_SESSION_HELPER_N="+strconv.Itoa(perProc))
		must(t, cmd.Start())
		cmds[p] = cmd
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper process: %v", err)
		}
	}
	s := NewStore(Options{GitCommonDir: dir})
	checkIndexComplete(t, s, all)
	sums, _, err := s.Find(Query{WorktreePath: "/w-p2"})
	must(t, err)
	if len(sums) != perProc {
		t.Fatalf("Find worktree /w-p2 = %d sessions, want %d", len(sums), perProc)
	}
}

func TestCorruptFileCachedInIndex(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	must(t, s.Save(testState("good", "/w", PhaseIdle)))
	must(t, os.WriteFile(s.Path("bad"), []byte("{"), 0o600))
	for range 2 {
		_, corrupt, err := s.Find(Query{})
		must(t, err)
		if len(corrupt) != 1 {
			t.Fatalf("corrupt = %v", corrupt)
		}
	}
	if e, ok := s.readIndex()["bad"]; !ok || !e.corrupt {
		t.Fatalf("corrupt file not recorded in index: %+v", e)
	}
	// Fixing the file is picked up.
	must(t, s.Save(testState("bad", "/w", PhaseActive)))
	sums, corrupt, err := s.Find(Query{})
	must(t, err)
	if len(corrupt) != 0 || len(sums) != 2 {
		t.Fatalf("after fix: %v %v", sums, corrupt)
	}
}
