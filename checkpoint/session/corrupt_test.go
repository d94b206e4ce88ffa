package session

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// A corrupt state file is an error for readers; a hook's store sets it
// aside, says so, and the session starts afresh. Corrupt lists both kinds
// and Discard deletes them.
func TestCorruptStateSetAside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	reader := NewStore(Options{GitCommonDir: dir, Now: now})
	if err := reader.Save(testState("sess-1", "/w", PhaseActive)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reader.Path("sess-1"), []byte(`{"session_id": "sess-1", "phase": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.Load("sess-1"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load of a corrupt file = %v, want ErrCorrupt", err)
	}
	if err := reader.Save(testState("sess-2", "/w", PhaseActive)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reader.Path("sess-2"), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, err := reader.Corrupt()
	if err != nil || len(cs) != 2 || cs[0].SetAside || cs[0].Err == nil {
		t.Fatalf("Corrupt before a hook = %+v, %v", cs, err)
	}

	var warned []string
	hook := NewStore(Options{GitCommonDir: dir, Now: now, OnCorrupt: func(id, moved string, cause error) {
		warned = append(warned, id+" "+moved)
	}})
	err = hook.Update("sess-1", func(st *State, exists bool) error {
		if exists {
			t.Error("a corrupt state was handed to Update as existing")
		}
		st.Phase = PhaseActive
		return nil
	})
	if err != nil {
		t.Fatalf("Update over a corrupt file: %v", err)
	}
	moved := reader.Path("sess-1") + ".corrupt-20260102T030405Z"
	if len(warned) != 1 || warned[0] != "sess-1 "+moved {
		t.Fatalf("OnCorrupt calls %q, want the file moved to %s", warned, moved)
	}
	if b, err := os.ReadFile(moved); err != nil || !strings.Contains(string(b), `"phase": `) {
		t.Fatalf("set-aside file: %v %q", err, b)
	}
	if st, err := reader.Load("sess-1"); err != nil || st.Phase != PhaseActive {
		t.Fatalf("fresh state after Update: %+v %v", st, err)
	}

	if n, err := reader.SetAsideCount(); n != 1 || err != nil {
		t.Fatalf("SetAsideCount = %d, %v", n, err)
	}
	cs, err = reader.Corrupt()
	if err != nil || len(cs) != 2 {
		t.Fatalf("Corrupt = %+v, %v", cs, err)
	}
	if !cs[0].SetAside || cs[0].Path != moved || cs[0].SessionID != "sess-1" {
		t.Errorf("set-aside entry %+v", cs[0])
	}
	if cs[1].SetAside || cs[1].SessionID != "sess-2" {
		t.Errorf("live corrupt entry %+v", cs[1])
	}
	for _, c := range cs {
		if err := reader.Discard(c); err != nil {
			t.Fatal(err)
		}
	}
	if cs, _ := reader.Corrupt(); len(cs) != 0 {
		t.Fatalf("Corrupt after Discard = %+v", cs)
	}
	if _, err := reader.Load("sess-1"); err != nil {
		t.Fatalf("Discard of the set-aside file touched the live state: %v", err)
	}
	if err := reader.Discard(CorruptFile{SessionID: "x", Path: reader.Path("sess-1"), SetAside: true}); err == nil {
		t.Fatal("Discard of a live state file named as set aside: want error")
	}
}

// Hook failures are counted until a hook succeeds.
func TestFaults(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	if f, err := s.Faults("sess-1"); err != nil || f.Count != 0 {
		t.Fatalf("Faults of a new session = %+v %v", f, err)
	}
	if err := s.RecordFault("sess-1", "stop", errors.New("first")); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordFault("sess-1", "user-prompt-submit", errors.New(strings.Repeat("x", 5000))); err != nil {
		t.Fatal(err)
	}
	f, err := s.Faults("sess-1")
	if err != nil || f.Count != 2 || f.LastHook != "user-prompt-submit" || len(f.LastMessage) != maxFaultMessage || f.LastAt.IsZero() {
		t.Fatalf("Faults = %+v %v", f, err)
	}
	if err := s.ClearFaults("sess-1"); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Faults("sess-1"); f.Count != 0 {
		t.Fatalf("Faults after a success = %+v", f)
	}
	if err := s.RecordFault("../x", "stop", errors.New("e")); !errors.Is(err, ErrInvalidID) {
		t.Fatalf("RecordFault with a bad id: %v", err)
	}
}
