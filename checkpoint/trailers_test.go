package checkpoint

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseTrailers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  string
		want Trailers
	}{
		{"shadow step", "Fix the bug\n\nEntire-Metadata: .entire/metadata/s1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n",
			Trailers{{"Entire-Metadata", ".entire/metadata/s1"}, {"Entire-Session", "s1"}, {"Entire-Strategy", "manual-commit"}}},
		{"empty value stays empty", "carry forward: uncommitted session files\n\nEntire-Metadata: \nEntire-Session: s1\nEntire-Strategy: manual-commit\n",
			Trailers{{"Entire-Metadata", ""}, {"Entire-Session", "s1"}, {"Entire-Strategy", "manual-commit"}}},
		{"only the last paragraph", "Subject\n\nEntire-Session: not-a-trailer-here\nprose\n\nEntire-Checkpoint: a3b2c4d5e6f7\n",
			Trailers{{"Entire-Checkpoint", "a3b2c4d5e6f7"}}},
		{"comments ignored", "Subject\n\nEntire-Checkpoint: a3b2c4d5e6f7\n# Remove the trailer...\n# Please enter the commit message\n",
			Trailers{{"Entire-Checkpoint", "a3b2c4d5e6f7"}}},
		{"crlf", "Subject\r\n\r\nEntire-Session: s1\r\n", Trailers{{"Entire-Session", "s1"}}},
		{"none", "just a subject", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ParseTrailers(tt.msg); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseTrailers(%q) = %#v, want %#v", tt.msg, got, tt.want)
			}
		})
	}
}

func TestTrailerAccessors(t *testing.T) {
	t.Parallel()
	msg := "Checkpoint: a3b2c4d5e6f7\n\nEntire-Session: s1\nEntire-Session: s2\nentire-session: s1\nEntire-Strategy: manual-commit\nBase-Commit: 0123456789abcdef0123456789abcdef01234567\nEntire-Checkpoint: a3b2c4d5e6f7x\nEntire-Checkpoint: 0123456789ab\n"
	tr := ParseTrailers(msg)
	if got := tr.Sessions(); !reflect.DeepEqual(got, []string{"s1", "s2"}) {
		t.Errorf("Sessions = %v", got)
	}
	if id, ok := tr.Checkpoint(); !ok || id != "0123456789ab" {
		t.Errorf("Checkpoint = %q %v (a value with trailing junk must not match)", id, ok)
	}
	if v, ok := tr.BaseCommit(); !ok || len(v) != 40 {
		t.Errorf("BaseCommit = %q %v", v, ok)
	}
	if v, _ := tr.Get("ENTIRE-STRATEGY"); v != "manual-commit" {
		t.Errorf("case-insensitive Get = %q", v)
	}
	if got := SourceRef("feature/x", "0123456789abcdef"); got != "feature/x@0123456789ab" {
		t.Errorf("SourceRef = %q", got)
	}
}

func TestTrailersRoundTrip(t *testing.T) {
	t.Parallel()
	in := Trailers{
		{TrailerCheckpoint, "a3b2c4d5e6f7"}, {TrailerSession, "2f1c-uuid"}, {TrailerStrategy, "manual-commit"},
		{TrailerMetadata, ""}, {TrailerMetadataTask, ".entire/metadata/s/tasks/toolu_1"}, {TrailerAgent, "Claude Code"},
		{TrailerEphemeralBranch, "entire/abc1234-e3b0c4"}, {TrailerBaseCommit, strings.Repeat("a", 40)},
		{TrailerCondensation, "x"}, {TrailerSourceRef, "main@0123456789ab"},
	}
	msg := "Subject line\n\nBody text.\n\n" + in.String()
	if got := ParseTrailers(msg); !reflect.DeepEqual(got, in) {
		t.Errorf("round trip:\n got %#v\nwant %#v", got, in)
	}
}

func TestAppendCheckpointTrailer(t *testing.T) {
	t.Parallel()
	id := ID("a3b2c4d5e6f7")
	tests := []struct{ msg, want string }{
		{"Fix bug\n", "Fix bug\n\nEntire-Checkpoint: a3b2c4d5e6f7\n"},
		{"Fix bug", "Fix bug\n\nEntire-Checkpoint: a3b2c4d5e6f7\n"},
		{"Fix bug\n\nSigned-off-by: A <a@b>\n", "Fix bug\n\nSigned-off-by: A <a@b>\nEntire-Checkpoint: a3b2c4d5e6f7\n"},
		{"Fix bug\n\nSigned-off-by: A <a@b>\n# comment\n", "Fix bug\n\nSigned-off-by: A <a@b>\n# comment\nEntire-Checkpoint: a3b2c4d5e6f7\n"},
		{"", "Entire-Checkpoint: a3b2c4d5e6f7\n"},
		{"Fix\n\nEntire-Checkpoint: 0123456789ab\n", "Fix\n\nEntire-Checkpoint: 0123456789ab\n"},
	}
	for _, tt := range tests {
		if got := AppendCheckpointTrailer(tt.msg, id); got != tt.want {
			t.Errorf("AppendCheckpointTrailer(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

func TestInsertCheckpointTrailerForEditor(t *testing.T) {
	t.Parallel()
	id := ID("a3b2c4d5e6f7")
	gitTemplate := "\n# Please enter the commit message for your changes.\n#\n# On branch main\n"
	got := InsertCheckpointTrailerForEditor(gitTemplate, id, "Claude Code", "  add   a\nfeature  ")
	want := "\n\nEntire-Checkpoint: a3b2c4d5e6f7\n" +
		"# Remove the Entire-Checkpoint trailer above if you don't want to link this commit to Claude Code session context.\n" +
		"# Last Prompt: add a feature\n" +
		"# The trailer will be added to your next commit based on this branch.\n" +
		"\n# Please enter the commit message for your changes.\n#\n# On branch main\n"
	if got != want {
		t.Errorf("empty body:\n got %q\nwant %q", got, want)
	}
	got = InsertCheckpointTrailerForEditor("Existing subject\n"+gitTemplate, id, "Gemini CLI", strings.Repeat("é", 100))
	if !strings.HasPrefix(got, "Existing subject\n\nEntire-Checkpoint: a3b2c4d5e6f7\n") ||
		!strings.Contains(got, "# Last Prompt: "+strings.Repeat("é", 80)+"...\n") {
		t.Errorf("with body: %q", got)
	}
	if id2, ok := CheckpointOf(got); !ok || id2 != id {
		t.Errorf("inserted trailer not parsed back: %q %v", id2, ok)
	}
}

func TestStripLoneCheckpointTrailer(t *testing.T) {
	t.Parallel()
	got, changed := StripLoneCheckpointTrailer("\n\nEntire-Checkpoint: a3b2c4d5e6f7\n# Remove the trailer\n")
	if !changed || strings.Contains(got, "Entire-Checkpoint") {
		t.Errorf("lone trailer kept: %q", got)
	}
	msg := "Real subject\n\nEntire-Checkpoint: a3b2c4d5e6f7\n"
	if got, changed := StripLoneCheckpointTrailer(msg); changed || got != msg {
		t.Errorf("message with content changed: %q", got)
	}
	if _, changed := StripLoneCheckpointTrailer("# only comments\n"); changed {
		t.Error("message without trailer changed")
	}
}

func FuzzParseTrailers(f *testing.F) {
	f.Add("Subject\n\nEntire-Checkpoint: a3b2c4d5e6f7\nEntire-Session: s\n")
	f.Add("Entire-Metadata: \nEntire-Session: x")
	f.Add("#c\n\n\r\n:\n-: v")
	f.Fuzz(func(t *testing.T, msg string) {
		tr := ParseTrailers(msg)
		for _, x := range tr {
			if strings.ContainsAny(x.Key, ": \n") || strings.Contains(x.Value, "\n") {
				t.Fatalf("bad trailer %#v from %q", x, msg)
			}
		}
		// Formatting and parsing again gives the same trailers.
		if len(tr) > 0 {
			if again := ParseTrailers("S\n\n" + tr.String()); !reflect.DeepEqual(again, tr) {
				t.Fatalf("re-parse %#v != %#v", again, tr)
			}
		}
		if id, ok := tr.Checkpoint(); ok && !id.Valid() {
			t.Fatalf("invalid checkpoint id %q", id)
		}
		out := AppendCheckpointTrailer(msg, "a3b2c4d5e6f7")
		if _, ok := CheckpointOf(out); !ok {
			t.Fatalf("appended trailer not found in %q", out)
		}
	})
}

func TestCheckpointOfOutsideTrailerBlock(t *testing.T) {
	t.Parallel()
	msg := "Fix\n\nEntire-Checkpoint: a3b2c4d5e6f7\n\nReviewed-by: someone\n"
	if id, ok := CheckpointOf(msg); !ok || id != "a3b2c4d5e6f7" {
		t.Errorf("trailer before another tool's paragraph: %q %v", id, ok)
	}
	if _, ok := CheckpointOf("Fix\n# Entire-Checkpoint: a3b2c4d5e6f7\n"); ok {
		t.Error("a comment line counted as a link")
	}
}

func TestCheckpointsOfTrailerBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg  string
		want []ID
	}{
		{"Subject\n", nil},
		{"Subject\n\nEntire-Checkpoint: a3b2c4d5e6f7\n", []ID{"a3b2c4d5e6f7"}},
		// A forge's squash: every squashed commit's trailer, one twice.
		{"Feature (#1)\n\n* one\n* two\n\nEntire-Checkpoint: a3b2c4d5e6f7\nEntire-Checkpoint: 0123456789ab\nEntire-Checkpoint: a3b2c4d5e6f7\n",
			[]ID{"a3b2c4d5e6f7", "0123456789ab"}},
		// Outside the trailer block too, in the order they appear; not in
		// comments, and not invalid IDs.
		{"Squash\n\nEntire-Checkpoint: 0123456789ab\n\nmore prose\n# Entire-Checkpoint: ffffffffffff\nEntire-Checkpoint: nope\n\nSigned-off-by: x\nEntire-Checkpoint: a3b2c4d5e6f7\n",
			[]ID{"0123456789ab", "a3b2c4d5e6f7"}},
	}
	for _, tt := range tests {
		if got := CheckpointsOf(tt.msg); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("CheckpointsOf(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}
