package checkpoint

import (
	"reflect"
	"strings"
	"testing"
)

func TestSessionMetadataRedacted(t *testing.T) {
	t.Parallel()
	red := func(s string) string { return strings.ReplaceAll(s, "s3cr3t", "REDACTED") }
	m := SessionMetadata{
		SessionID: "s3cr3t-session", TurnID: "s3cr3t", Strategy: StrategyManualCommit,
		FilesTouched:   []string{"b.txt", "a/s3cr3t.txt", "a/REDACTED.txt"},
		Branch:         "fix/s3cr3t",
		TranscriptPath: ".claude/projects/s3cr3t/x.jsonl",
		Summary: &Summary{Intent: "use s3cr3t", Friction: []string{"s3cr3t"},
			Learnings: Learnings{Code: []CodeLearning{{Path: "s3cr3t.go", Line: 3, Finding: "s3cr3t here"}}}},
	}
	got := m.Redacted(red)
	want := SessionMetadata{
		SessionID: "s3cr3t-session", TurnID: "s3cr3t", Strategy: StrategyManualCommit, // IDs are kept
		FilesTouched: []string{"a/REDACTED.txt", "b.txt"},
		Branch:       "fix/REDACTED",
		Summary: &Summary{Intent: "use REDACTED", Friction: []string{"REDACTED"},
			Learnings: Learnings{Code: []CodeLearning{{Path: "REDACTED.go", Line: 3, Finding: "REDACTED here"}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Redacted =\n%+v\nwant\n%+v", got, want)
	}
	if m.FilesTouched[1] != "a/s3cr3t.txt" || m.Summary.Intent != "use s3cr3t" {
		t.Error("Redacted modified its receiver")
	}
	kept := SessionMetadata{TranscriptPath: ".claude/projects/p/x.jsonl", FilesTouched: []string{}}
	if got := kept.Redacted(red); got.TranscriptPath != kept.TranscriptPath || got.FilesTouched == nil {
		t.Errorf("Redacted changed clean metadata: %+v", got)
	}
}
