package session

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestUpdateSerialises(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Update("counter", func(st *State, exists bool) error {
				st.CheckpointCount++
				st.FilesTouched = append(st.FilesTouched, fmt.Sprintf("f%02d", i))
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	st, err := s.Load("counter")
	must(t, err)
	if st.CheckpointCount != n || len(st.FilesTouched) != n {
		t.Fatalf("lost updates: count=%d files=%d, want %d", st.CheckpointCount, len(st.FilesTouched), n)
	}
}

func TestUpdateErrorsAndCreation(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	boom := errors.New("boom")
	if err := s.Update("x", func(st *State, exists bool) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Update error = %v, want boom", err)
	}
	if _, err := s.Load("x"); !errors.Is(err, ErrNotFound) {
		t.Fatal("state saved although fn failed")
	}
	var sawExists []bool
	for range 2 {
		must(t, s.Update("x", func(st *State, exists bool) error {
			sawExists = append(sawExists, exists)
			st.Phase = PhaseActive
			return nil
		}))
	}
	if fmt.Sprint(sawExists) != "[false true]" {
		t.Fatalf("exists = %v", sawExists)
	}
	if err := s.Update("../x", func(*State, bool) error { return nil }); !errors.Is(err, ErrInvalidID) {
		t.Fatalf("invalid id: %v", err)
	}
}
