package e2etest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// SessionRepo is a repository set up as `entire enable` leaves it, with
// entire first on PATH so that git hooks run it, and a Claude Code session
// played through the real hooks.
type SessionRepo struct {
	T          *testing.T
	Dir        string
	Transcript string
	Env        []string
	SessionID  string
	Turn       int
}

// NewSessionRepo returns a repository with one commit, enabled for Claude
// Code with the default settings (committed) and the git hooks installed.
func NewSessionRepo(t *testing.T) *SessionRepo {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	if err := settings.Save(settings.ProjectPath(dir), settings.Defaults()); err != nil {
		t.Fatal(err)
	}
	if _, err := settings.EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	env := append(ProgramEnv(t), "ENTIRE_TEST_TTY=0")
	if _, err := githook.Install(githook.Options{RepoRoot: dir, Env: append(gittest.Env(t.TempDir()), env...)}); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "-A")
	// Without the hooks: an `entire` the user installed on PATH would run
	// them (and write .entire/logs) before the test starts.
	gittest.Git(t, dir, "-c", "core.hooksPath="+t.TempDir(), "commit", "-q", "-m", "enable entire")
	projects := t.TempDir()
	env = append(env, "ENTIRE_TEST_CLAUDE_PROJECT_DIR="+projects)
	return &SessionRepo{T: t, Dir: dir, Transcript: filepath.Join(projects, "sess-1.jsonl"), Env: env, SessionID: "sess-1"}
}

func (r *SessionRepo) Hook(verb string, payload map[string]any) (string, string) {
	r.T.Helper()
	payload["session_id"] = r.SessionID
	payload["transcript_path"] = r.Transcript
	payload["cwd"] = r.Dir
	b, _ := json.Marshal(payload)
	out, errOut, code := RunEntire(r.T, r.Dir, r.Env, string(b), "hooks", "claude-code", verb)
	if code != 0 {
		r.T.Fatalf("hook %s exit %d: %s", verb, code, errOut)
	}
	return out, errOut
}

func (r *SessionRepo) AppendTranscript(lines ...map[string]any) {
	r.T.Helper()
	f, err := os.OpenFile(r.Transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		r.T.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		l["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
		b, _ := json.Marshal(l)
		f.Write(append(b, '\n'))
	}
}

// GitCmd is a git command run in the session repository with the test's
// environment (the built binary on PATH).
func GitCmd(t *testing.T, r *SessionRepo, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
	return cmd
}
