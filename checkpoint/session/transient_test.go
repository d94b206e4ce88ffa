package session

import (
	"errors"
	"os"
	"reflect"
	"testing"
	"time"
)

func TestPrePromptRoundTrip(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	loc := time.FixedZone("X", 3600)
	in := &PrePrompt{SessionID: "s-1", Timestamp: time.Date(2026, 2, 3, 4, 5, 6, 0, loc),
		UntrackedFiles: []string{"a", "b"}, StartMessageIndex: 4, LastTranscriptIdentifier: "u", StepTranscriptStart: 9,
		Head: "c0ffee", Dirty: map[string]PathState{"a": {Mode: 0o100644, Hash: "abc"}, "gone": {}}}
	must(t, WritePrePrompt(root, in))
	data, err := os.ReadFile(PrePromptPath(root, "s-1"))
	must(t, err)
	if !contains(data, `"timestamp": "2026-02-03T03:05:06Z"`) {
		t.Fatalf("timestamp not RFC3339 UTC:\n%s", data)
	}
	info, _ := os.Stat(PrePromptPath(root, "s-1"))
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", info.Mode().Perm())
	}
	got, err := ReadPrePrompt(root, "s-1")
	must(t, err)
	want := *in
	want.Timestamp = in.Timestamp.UTC()
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("got %+v want %+v", got, want)
	}
	must(t, DeletePrePrompt(root, "s-1"))
	must(t, DeletePrePrompt(root, "s-1"))
	if _, err := ReadPrePrompt(root, "s-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read after delete: %v", err)
	}
}

func TestPrePromptLegacyLineCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json string
		want       int
	}{
		{"legacy only", `{"session_id":"s","last_transcript_line_count":42}`, 42},
		{"new wins", `{"session_id":"s","last_transcript_line_count":42,"step_transcript_start":7}`, 7},
		{"neither", `{"session_id":"s"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			must(t, os.MkdirAll(root+"/"+TmpDir, 0o750))
			must(t, os.WriteFile(PrePromptPath(root, "s"), []byte(tt.json), 0o600))
			got, err := ReadPrePrompt(root, "s")
			must(t, err)
			if got.StepTranscriptStart != tt.want {
				t.Fatalf("StepTranscriptStart = %d, want %d", got.StepTranscriptStart, tt.want)
			}
		})
	}
}

func TestPreTask(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	in := &PreTask{ToolUseID: "toolu_01ABC-x", Timestamp: time.Unix(0, 0).UTC(), UntrackedFiles: []string{"x"}}
	must(t, WritePreTask(root, in))
	got, err := ReadPreTask(root, "toolu_01ABC-x")
	must(t, err)
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("got %+v", got)
	}
	must(t, DeletePreTask(root, "toolu_01ABC-x"))
	if _, err := ReadPreTask(root, "toolu_01ABC-x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestTransientRejectsBadIDs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, id := range []string{"", "../x", "a/b", "a b", "a.b", "ü"} {
		if err := WritePreTask(root, &PreTask{ToolUseID: id}); !errors.Is(err, ErrInvalidID) {
			t.Errorf("WritePreTask(%q) = %v", id, err)
		}
		if _, err := ReadPreTask(root, id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("ReadPreTask(%q) = %v", id, err)
		}
		if err := DeletePreTask(root, id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("DeletePreTask(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", "../x", `a\b`} {
		if err := WritePrePrompt(root, &PrePrompt{SessionID: id}); !errors.Is(err, ErrInvalidID) {
			t.Errorf("WritePrePrompt(%q) = %v", id, err)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("files written for invalid ids: %v", entries)
	}
}
