package strategy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// parseRawDiff reads git's own output: an added file is new with its index
// blob, a modified one is not new, a deleted one has no blob; odd paths
// come through whole.
func TestParseRawDiff(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.WriteFile(t, dir, "gone.txt", "g\n")
	gittest.Git(t, dir, "add", "gone.txt")
	gittest.Git(t, dir, "commit", "-q", "-m", "gone")
	gittest.WriteFile(t, dir, "new file\twith tab.txt", "n\n")
	gittest.WriteFile(t, dir, "README.md", "changed\n")
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "-A")
	out := gittest.Git(t, dir, "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev")
	got, err := parseRawDiff(out)
	if err != nil {
		t.Fatal(err)
	}
	blob := gittest.Git(t, dir, "rev-parse", ":new file\twith tab.txt")
	if c, ok := got["new file\twith tab.txt"]; !ok || !c.New || c.Hash.String() != blob {
		t.Errorf("added file: %+v (blob %s)", c, blob)
	}
	if c, ok := got["README.md"]; !ok || c.New || c.Hash.String() != gittest.Git(t, dir, "rev-parse", ":README.md") {
		t.Errorf("modified file: %+v", c)
	}
	if c, ok := got["gone.txt"]; !ok || c.New || !c.Hash.IsZero() {
		t.Errorf("deleted file: %+v", c)
	}
	if len(got) != 3 {
		t.Errorf("parsed %d paths: %v", len(got), got)
	}
	if _, err := parseRawDiff("garbage\x00path\x00"); err == nil {
		t.Error("garbage parsed")
	}
}
