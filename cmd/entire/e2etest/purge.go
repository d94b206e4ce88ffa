package e2etest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// CloneSessionRepo clones remote into a new directory as a teammate's
// clone with entire's git hooks installed, and a Claude Code session of
// its own.
func CloneSessionRepo(t *testing.T, remote, sessionID string) *SessionRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	gittest.Git(t, filepath.Dir(dir), "clone", "-q", remote, dir)
	gittest.Git(t, dir, "config", "user.name", "Test User")
	gittest.Git(t, dir, "config", "user.email", "test@example.com")
	gittest.Git(t, dir, "config", "gc.auto", "0")
	binDir := filepath.Dir(EntireBin())
	env := []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "ENTIRE_TEST_TTY=0"}
	if _, err := githook.Install(githook.Options{RepoRoot: dir, Env: append(gittest.Env(t.TempDir()), env...)}); err != nil {
		t.Fatal(err)
	}
	projects := t.TempDir()
	env = append(env, "ENTIRE_TEST_CLAUDE_PROJECT_DIR="+projects)
	return &SessionRepo{T: t, Dir: dir, Transcript: filepath.Join(projects, sessionID+".jsonl"), Env: env, SessionID: sessionID}
}
