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
	return fixtureDir(t, filepath.Join("transcripts", sub))
}

// HookPayload returns the real hook payload shared/fixtures/hook-payloads/
// <client>/<name> (e.g. "claude-code-2.1.197", "claude-code-post-todo.json"),
// found as TranscriptFixtureDir finds transcripts. It skips the test when
// the file is absent.
func HookPayload(t testing.TB, client, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir(t, filepath.Join("hook-payloads", client)), name))
	if err != nil {
		t.Skipf("hook payload fixture %s/%s: %v", client, name, err)
	}
	return b
}

// fixtureDir returns shared/fixtures/<rel> of the nearest ancestor of the
// working directory that has it, and skips the test when none has.
func fixtureDir(t testing.TB, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Skipf("no working directory: %v", err)
	}
	for {
		cand := filepath.Join(dir, "shared", "fixtures", rel)
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("fixture directory shared/fixtures/%s not found", rel)
			return ""
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
