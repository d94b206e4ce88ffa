package agenttest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TranscriptFixtureDir returns shared/fixtures/transcripts/<sub> (e.g.
// "claude-code"), found in the nearest ancestor of the working directory that
// has it (the repository's ../shared, per the project brief). It skips the
// test if there is none.
func TranscriptFixtureDir(t testing.TB, sub string) string {
	t.Helper()
	dir, ok := findShared(filepath.Join("fixtures", "transcripts", sub))
	if !ok {
		t.Skipf("fixture directory shared/fixtures/transcripts/%s not found", sub)
	}
	return dir
}

// findShared returns shared/<rel> in the nearest ancestor of the working
// directory that has it as a directory.
func findShared(rel string) (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		cand := filepath.Join(dir, "shared", rel)
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// TranscriptFixtures returns the transcript files (not *-metadata.json) in
// TranscriptFixtureDir(sub), sorted.
func TranscriptFixtures(t testing.TB, sub string) []string {
	t.Helper()
	dir := TranscriptFixtureDir(t, sub)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || filepath.Ext(n) == ".md" || filepath.Ext(n) == ".json" && len(n) > 14 && n[len(n)-14:] == "-metadata.json" {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	sort.Strings(out)
	return out
}
