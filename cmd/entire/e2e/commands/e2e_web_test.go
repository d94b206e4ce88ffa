package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Without entire-web beside it or on PATH, `entire web` says in one line
// what to install; outside a repository it says that; bad flags reach
// neither.
func TestWebWithoutItsProgram(t *testing.T) {
	t.Parallel()
	alone := filepath.Join(t.TempDir(), "entire")
	b, err := os.ReadFile(e2etest.EntireBin())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	repo := gittest.InitWithCommit(t)
	cmd := exec.Command(alone, "web", "--no-open")
	cmd.Dir = repo
	cmd.Env = append(gittest.Env(t.TempDir()), "PATH="+t.TempDir()+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 || !strings.Contains(string(out), "entire web needs the entire-web program") {
		t.Errorf("entire web without entire-web: %v\n%s", err, out)
	}
	if _, errOut, code := e2etest.RunEntire(t, t.TempDir(), nil, "", "web", "--no-open"); code != 1 || !strings.Contains(errOut, "not a git repository") {
		t.Errorf("entire web outside a repository: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := e2etest.RunEntire(t, repo, nil, "", "web", "--port", "70000"); code != 1 || !strings.Contains(errOut, "--port must be between 0 and 65535") {
		t.Errorf("entire web --port 70000: exit %d\n%s", code, errOut)
	}
}
