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
