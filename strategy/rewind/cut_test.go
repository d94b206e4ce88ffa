package rewind

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/strategy/rewind/undostore"
	"github.com/entirecli/entire/strategy/translog"
)

// recordPrefix records, as the strategy does after a step, that the
// transcript stored from the live file's current content is its raw
// prefix.
func recordPrefix(t *testing.T, fx *fixture) {
	t.Helper()
	data, err := os.ReadFile(fx.transcript)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := checkpoint.AppendJSONL(fx.repo, nil, data)
	if err != nil {
		t.Fatal(err)
	}
	ts.SourceOffset = int64(len(data))
	f, err := os.Open(fx.transcript)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := translog.Extend(f, nil, ts.SourceOffset)
	if err != nil {
		t.Fatal(err)
	}
	state, _ := json.Marshal(ts)
	pr.ContentHash, pr.Lines, pr.State = ts.ContentHash, ts.Lines, state
	if err := translog.New(fx.repo.CommonDir, fx.st.SessionID).AddPrefix(pr, false); err != nil {
		t.Fatal(err)
	}
}

// A rewind to a step whose stored transcript is a recorded prefix of the
// live file cuts the file there; its undo point keeps only the cut tail
// and gives the file back byte for byte.
func TestRewindCutsTranscript(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	one := fx.step("one", map[string]string{"a.txt": "1"}, []string{`{"uuid":"u1","type":"user"}`}, "", "")
	recordPrefix(t, fx)
	fx.step("two", map[string]string{"a.txt": "2"}, []string{`{"uuid":"u2"}`, `{"uuid":"u3"}`}, "", "")
	before, _ := os.ReadFile(fx.transcript)
	rw := fx.rewinder()
	plan := planTo(t, rw, one)
	if len(plan.Transcripts) != 1 || plan.Transcripts[0].cut == nil || plan.Transcripts[0].data != nil {
		t.Fatalf("plan does not cut the transcript: %+v", plan.Transcripts)
	}
	res, err := rw.Apply(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fx.transcript); string(b) != "{\"uuid\":\"u1\",\"type\":\"user\"}\n" {
		t.Errorf("transcript after the cut: %q", b)
	}
	st, _ := fx.sessions.Load(fx.st.SessionID)
	if st.ShadowTranscript == nil || st.ShadowTranscript.Lines != 1 || st.TranscriptCursor == nil ||
		st.TranscriptCursor.Entries != 1 || st.TranscriptCursor.LastID != "u1" {
		t.Errorf("session after the cut: transcript %+v cursor %+v", st.ShadowTranscript, st.TranscriptCursor)
	}
	var pt undoPoint
	data, err := undostore.New(fx.repo.GitDir).Read(res.UndoPoint, &pt)
	if err != nil {
		t.Fatal(err)
	}
	tail := len(before) - len("{\"uuid\":\"u1\",\"type\":\"user\"}\n")
	// The point's data: a.txt's content ("2") and the transcript's tail.
	if len(pt.Transcripts) != 1 || len(data) != 1+tail {
		t.Errorf("undo point keeps %d bytes, want a.txt and the %d-byte tail only", len(data), tail)
	}
	if _, err := rw.Undo(context.Background(), res.UndoPoint); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fx.transcript); string(b) != string(before) {
		t.Errorf("undo gave back %q, want %q", b, before)
	}
}

// A live file that does not start with the recorded prefix (rewritten
// since) is not cut: the stored transcript is written back as before.
func TestRewindRewritesWhenNotAnExtension(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	one := fx.step("one", map[string]string{"a.txt": "1"}, []string{`{"uuid":"u1"}`}, "", "")
	recordPrefix(t, fx)
	fx.step("two", map[string]string{"a.txt": "2"}, []string{`{"uuid":"u2"}`}, "", "")
	if err := os.WriteFile(fx.transcript, []byte("{\"uuid\":\"X1\"}\n{\"uuid\":\"u2\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rw := fx.rewinder()
	plan := planTo(t, rw, one)
	if len(plan.Transcripts) != 1 || plan.Transcripts[0].cut != nil {
		t.Fatalf("a rewritten file is cut: %+v", plan.Transcripts)
	}
	if _, err := rw.Apply(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fx.transcript); string(b) != "{\"uuid\":\"u1\"}\n" {
		t.Errorf("transcript written back: %q", b)
	}
}

// Match hashes the prefix and, in the same pass, the whole file.
func TestPrefixMatch(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("abcdef"), 0o600)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := translog.Extend(f, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	longer, err := translog.Extend(f, &pr, 6)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := translog.Extend(f, nil, 6)
	if longer.SHA256 != whole.SHA256 {
		t.Error("a continued hash differs from the whole one")
	}
	if _, err := translog.Extend(f, &pr, 7); err == nil {
		t.Error("a prefix past the end was hashed")
	}
	var sum string
	if size, ok, err := translog.Match(f, pr, &sum); err != nil || !ok || size != 6 || sum != whole.SHA256 {
		t.Errorf("Match = %d %v %v %q", size, ok, err, sum)
	}
	os.WriteFile(path, []byte("xbcdef"), 0o600)
	if _, ok, _ := translog.Match(f, pr, nil); ok {
		t.Error("a changed prefix matches")
	}
}

// A live transcript that is a symbolic link is not cut (a cut would
// shorten the link's target, which an undo does not give back): the
// stored transcript is written back as before.
func TestRewindDoesNotCutThroughSymlink(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	one := fx.step("one", map[string]string{"a.txt": "1"}, []string{`{"uuid":"u1"}`}, "", "")
	recordPrefix(t, fx)
	fx.step("two", map[string]string{"a.txt": "2"}, []string{`{"uuid":"u2"}`}, "", "")
	target := filepath.Join(t.TempDir(), "target.jsonl")
	data, _ := os.ReadFile(fx.transcript)
	if err := os.WriteFile(target, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(fx.transcript); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, fx.transcript); err != nil {
		t.Fatal(err)
	}
	plan := planTo(t, fx.rewinder(), one)
	if len(plan.Transcripts) != 1 || plan.Transcripts[0].cut != nil {
		t.Fatalf("a symlinked transcript is cut: %+v", plan.Transcripts)
	}
}

// A transcript written to after the undo point saved it is not cut: the
// undo point would not give back what was appended.
func TestCutRefusesChangedTranscript(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	one := fx.step("one", map[string]string{"a.txt": "1"}, []string{`{"uuid":"u1"}`}, "", "")
	recordPrefix(t, fx)
	fx.step("two", map[string]string{"a.txt": "2"}, []string{`{"uuid":"u2"}`}, "", "")
	rw := fx.rewinder()
	plan := planTo(t, rw, one)
	if len(plan.Transcripts) != 1 || plan.Transcripts[0].cut == nil {
		t.Fatalf("plan does not cut the transcript: %+v", plan.Transcripts)
	}
	var b dataBuilder
	if _, err := saveTranscripts(plan.Transcripts, &b); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fx.transcript, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{\"uuid\":\"u3\"}\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := os.ReadFile(fx.transcript)
	if err := rw.writeTranscripts(plan.Transcripts); err == nil {
		t.Error("a transcript appended to after the undo point was cut")
	}
	if after, _ := os.ReadFile(fx.transcript); string(after) != string(before) {
		t.Errorf("transcript changed to %q", after)
	}
}
