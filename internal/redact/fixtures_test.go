package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// fixtureDir finds shared/fixtures/transcripts beside the repository (or
// beside any ancestor directory, which covers git worktrees); it skips the
// test when the fixtures are absent.
func fixtureDir(tb testing.TB) string {
	tb.Helper()
	dir := fixtureDirQuiet()
	if dir == "" {
		tb.Skip("fixtures directory shared/fixtures/transcripts not found")
	}
	return dir
}

// fixtureTranscripts returns the transcript files of the fixture corpus
// (the *-metadata.json sidecars are not transcripts).
func fixtureTranscripts(tb testing.TB) []string {
	tb.Helper()
	root := fixtureDir(tb)
	var files []string
	for _, sub := range []string{"claude-code", "gemini-cli"} {
		ents, err := os.ReadDir(filepath.Join(root, sub))
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range ents {
			n := e.Name()
			if strings.HasSuffix(n, "-metadata.json") || !(strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".json")) {
				continue
			}
			files = append(files, filepath.Join(root, sub, n))
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		tb.Skip("no fixture transcripts")
	}
	return files
}

// unit is one countable piece of a transcript: a JSONL line, or one message
// of a single-document Gemini session.
type unit struct {
	in, out []byte
}

// splitUnits redacts a fixture and pairs its input and output units.
func splitUnits(t *testing.T, r *Redactor, data []byte) []unit {
	t.Helper()
	if json.Valid(data) && bytes.Count(bytes.TrimSpace(data), []byte("\n")) > 0 {
		out := r.JSONDoc(data)
		if !json.Valid(out) {
			t.Fatalf("JSONDoc output is not valid JSON")
		}
		var a, b struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatal(err)
		}
		if len(a.Messages) != len(b.Messages) {
			t.Fatalf("message count changed: %d -> %d", len(a.Messages), len(b.Messages))
		}
		var us []unit
		for i := range a.Messages {
			us = append(us, unit{in: a.Messages[i], out: b.Messages[i]})
		}
		if len(us) == 0 {
			us = append(us, unit{in: data, out: out})
		}
		return us
	}
	var us []unit
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		out := r.JSONLine(line)
		if json.Valid(line) && !json.Valid(out) {
			t.Fatalf("JSONLine broke a valid line")
		}
		us = append(us, unit{in: line, out: out})
	}
	return us
}

func TestFixturesMostlyUnchanged(t *testing.T) {
	r := newTestRedactor(t, Options{})
	total, changed, naive := 0, 0, 0
	ruleCount := map[string]int{}
	for _, f := range fixtureTranscripts(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fileChanged := 0
		us := splitUnits(t, r, data)
		for i, u := range us {
			total++
			if naiveEntropyHit(u.in) {
				naive++
			}
			if bytes.Equal(u.in, u.out) {
				continue
			}
			changed++
			fileChanged++
			var rules []string
			for _, fd := range r.ScanJSON(u.in) {
				if !slices.Contains(rules, fd.RuleID) {
					rules = append(rules, fd.RuleID)
				}
				ruleCount[fd.RuleID]++
			}
			t.Logf("%s unit %d changed by %v", filepath.Base(f), i+1, rules)
		}
		t.Logf("%s: %d/%d units changed", filepath.Base(f), fileChanged, len(us))
	}
	pct := 100 * float64(total-changed) / float64(total)
	t.Logf("fixtures: %d units, %d changed, %.2f%% byte-identical; findings per rule: %v", total, changed, pct, ruleCount)
	t.Logf("for comparison, SPEC 7.1's plain entropy rule (runs >= 10 bytes, entropy > 4.5) would hit %d units", naive)
	if pct < 97 {
		t.Errorf("only %.2f%% of fixture units are byte-identical, want >= 97%%", pct)
	}
}

func newTestRedactor(tb testing.TB, o Options) *Redactor {
	tb.Helper()
	r, err := New(o)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// naiveEntropyHit applies SPEC 7.1's detector (a) without our word, path and
// ID filters, for comparison in the test log.
func naiveEntropyHit(b []byte) bool {
	i := 0
	for i < len(b) {
		if !isTokenByte(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && isTokenByte(b[j]) {
			j++
		}
		if j-i >= 10 && shannonEntropy(string(b[i:j])) > 4.5 {
			return true
		}
		i = j
	}
	return false
}
