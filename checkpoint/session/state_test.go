package session

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
)

func TestDecodeMigration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		wantStart  int
		wantAttrib string
		wantPhase  Phase
	}{
		{"current", `{"session_id":"s","base_commit":"abc","checkpoint_transcript_start":7,"phase":"active"}`, 7, "abc", PhaseActive},
		{"condensed lines", `{"session_id":"s","base_commit":"abc","condensed_transcript_lines":12}`, 12, "abc", PhaseIdle},
		{"lines at start", `{"session_id":"s","transcript_lines_at_start":3,"phase":"active_committed"}`, 3, "", PhaseActive},
		{"condensed wins over at start", `{"session_id":"s","condensed_transcript_lines":5,"transcript_lines_at_start":3}`, 5, "", PhaseIdle},
		{"new field wins", `{"session_id":"s","checkpoint_transcript_start":9,"condensed_transcript_lines":5}`, 9, "", PhaseIdle},
		{"attribution kept", `{"session_id":"s","base_commit":"new","attribution_base_commit":"old","phase":"ended"}`, 0, "old", PhaseEnded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if st.CheckpointTranscriptStart != tt.wantStart || st.AttributionBaseCommit != tt.wantAttrib || st.Phase != tt.wantPhase {
				t.Fatalf("got start=%d attrib=%q phase=%q", st.CheckpointTranscriptStart, st.AttributionBaseCommit, st.Phase)
			}
			out, err := Encode(st)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"condensed_transcript_lines", "transcript_lines_at_start"} {
				if contains(out, key) {
					t.Fatalf("encoded state still has deprecated key %s:\n%s", key, out)
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{`, `[]`, `{"checkpoint_count":"x"}`, `{"started_at":"yesterday"}`} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q): want error", in)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	ended := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := &State{
		SessionID: "0f9e1c2a-uuid", CLIVersion: "1.0.0", BaseCommit: "abc", AttributionBaseCommit: "abc",
		WorktreePath: "/repo", StartedAt: ended.Add(-time.Hour), EndedAt: &ended, Phase: PhaseEnded,
		TurnID: "0123456789ab", TurnCheckpointIDs: []string{"aabbccddeeff"}, CheckpointCount: 2,
		FilesTouched: []string{"a.go"}, AgentType: "Claude Code",
		TokenUsage:         &agent.TokenUsage{InputTokens: 1, OutputTokens: 2, APICallCount: 1, SubagentTokens: &agent.TokenUsage{InputTokens: 5}},
		PromptAttributions: []PromptAttribution{{CheckpointNumber: 1, AgentLinesAdded: 3, UserAddedPerFile: map[string]int{"a.go": 1}}},
		TranscriptCursor:   &TranscriptCursor{Entries: 10, Offset: 2048, LastID: "u-1"},
		ShadowTranscript:   &checkpoint.TranscriptState{Chunks: []string{"h"}, LastSize: 9, SourceOffset: 9},
		Changes:            &ChangeRecord{Turns: []string{"a.go"}, User: []UserEdit{{Path: "b.go", TurnID: "0123456789ab", Since: "c0ffee"}}},
	}
	data, err := Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if data[len(data)-1] != '\n' || !contains(data, "\n  \"session_id\": ") {
		t.Fatalf("not 2-space JSON with newline:\n%s", data)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, st)
	}
}

// The change record keeps the latest measurement of each user edit, and a
// condensation keeps only the turn changes left uncommitted.
func TestChangeRecord(t *testing.T) {
	t.Parallel()
	c := &ChangeRecord{Turns: []string{"a", "b", "c"}}
	c.AddUser([]UserEdit{{Path: "y", TurnID: "t1"}, {Path: "x", TurnID: "t1"}})
	c.AddUser([]UserEdit{{Path: "x", TurnID: "t2", Since: "s2"}})
	want := []UserEdit{{Path: "x", TurnID: "t2", Since: "s2"}, {Path: "y", TurnID: "t1"}}
	if !reflect.DeepEqual(c.User, want) {
		t.Errorf("user edits %+v, want %+v", c.User, want)
	}
	if got := c.Condensed([]string{"c", "z"}); !reflect.DeepEqual(got, &ChangeRecord{Turns: []string{"c"}}) {
		t.Errorf("after a condensation leaving c and z: %+v", got)
	}
	if got := c.Condensed(nil); got == nil || len(got.Turns)+len(got.User) != 0 {
		t.Errorf("after a whole condensation: %+v", got)
	}
	if (*ChangeRecord)(nil).Condensed([]string{"a"}) != nil {
		t.Error("a state without a record got one")
	}
	// A state written without the record has no "changes" key, and one
	// with it keeps the 0.4.x keys.
	data, _ := Encode(&State{SessionID: "s", FilesTouched: []string{"a"}})
	if contains(data, "changes") {
		t.Errorf("record written for a state without one:\n%s", data)
	}
	data, _ = Encode(&State{SessionID: "s", FilesTouched: []string{"a"}, Changes: c})
	if !contains(data, `"files_touched": [`) || !contains(data, `"changes": {`) {
		t.Errorf("state with a record:\n%s", data)
	}
}

func TestValidateID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id string
		ok bool
	}{
		{"", false}, {"a/b", false}, {`a\b`, false}, {"..", false}, {"a..b", false}, {".hidden", false},
		{"x\x00y", false}, {"s\nEntire-Checkpoint: 0", false}, {"s\x1b[2J", false}, {"s\u009b", false}, {"s\xff", false}, {"session ünïcode", true},
		{"unknown", true}, {"8f3c2e1a-7b6d-4c5e-9f0a-1b2c3d4e5f60", true}, {"a.b", true},
	}
	for _, tt := range tests {
		err := ValidateID(tt.id)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateID(%q) = %v, want ok=%v", tt.id, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidID) {
			t.Errorf("ValidateID(%q) error %v does not wrap ErrInvalidID", tt.id, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","phase":"active_committed","condensed_transcript_lines":4}`))
	f.Add([]byte(`{"token_usage":{"subagent_tokens":{}}, "ended_at":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Decode(data)
		if err != nil {
			return
		}
		switch st.Phase {
		case PhaseActive, PhaseIdle, PhaseEnded:
		default:
			t.Fatalf("phase not normalised: %q", st.Phase)
		}
		if _, err := Encode(st); err != nil {
			t.Fatalf("encode decoded state: %v", err)
		}
	})
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
