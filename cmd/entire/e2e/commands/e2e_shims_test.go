package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// oldCommitMsgShim is the commit-msg shim entire installed before a failure
// of `entire` stopped aborting the commit.
const oldCommitMsgShim = `#!/bin/sh
# Entire CLI hooks
# Strips an Entire-Checkpoint trailer left without agent changes. A failure aborts the commit.
if command -v entire >/dev/null 2>&1; then
  entire hooks git commit-msg "$1" || exit 1
else
  echo "[entire] 'entire' not found on PATH; skipping the commit-msg hook" >&2
fi
exit 0
`

// An install left by an older entire is brought up to date by the next
// turn's self-healing, and then an `entire` that fails (an older binary
// first on PATH, a crash) no longer aborts the user's commit.
func TestE2EOutdatedShimsHealed(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	hook := filepath.Join(e2etest.GitCommonDir(t, r.Dir), "hooks", "commit-msg")
	if err := os.WriteFile(hook, []byte(oldCommitMsgShim), 0o755); err != nil {
		t.Fatal(err)
	}
	r.AgentTurn("Add a file", map[string]string{"a.txt": "a\n"})
	data, err := os.ReadFile(hook)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "|| exit 1") {
		t.Fatalf("outdated commit-msg shim not rewritten by the turn:\n%s", data)
	}

	// A broken entire first on PATH.
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "entire"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, r.Dir, "add", "a.txt")
	if out, err := r.GitIn(r.Dir, []string{"PATH=" + broken + string(os.PathListSeparator) + os.Getenv("PATH")}, "commit", "-q", "-m", "Add a"); err != nil {
		t.Fatalf("a failing entire aborted the commit: %v\n%s", err, out)
	}
}
