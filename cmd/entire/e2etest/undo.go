package e2etest

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// UndoStoreDir is where the work tree holding dir keeps its undo points.
func UndoStoreDir(t *testing.T, dir string) string {
	t.Helper()
	return filepath.Join(GitDir(t, dir), "entire-undo")
}

// UndoPoints lists the undo points of the work tree holding dir, oldest
// first.
func UndoPoints(t *testing.T, dir string) []string {
	t.Helper()
	entries, _ := os.ReadDir(UndoStoreDir(t, dir))
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// FakeToken returns a GitHub token shaped string (ghp_ and 36
// alphanumerics), different for each seed.
func FakeToken(seed int64) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	rng := rand.New(rand.NewSource(seed))
	b := make([]byte, 36)
	for i := range b {
		b[i] = alnum[rng.Intn(len(alnum))]
	}
	return "ghp_" + string(b)
}

// PointOfTurn finds the listed rewind point whose message names turn n
// ("Turn one: …" for n = 1, up to five).
func PointOfTurn(t *testing.T, pts []ListedPoint, n int) ListedPoint {
	t.Helper()
	names := []string{"", "one", "two", "three", "four", "five"}
	for _, p := range pts {
		if !p.IsLogsOnly && strings.HasPrefix(strings.ToLower(p.Message), "turn "+names[n]+":") {
			return p
		}
	}
	t.Fatalf("no point for turn %d in %+v", n, pts)
	return ListedPoint{}
}
