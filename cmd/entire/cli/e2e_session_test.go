package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// SessionRepo is a repository set up as `entire enable` leaves it, with the
// built binary first on PATH so that git hooks run it.
type SessionRepo struct {
	T          *testing.T
	Dir        string
	Transcript string
	Env        []string
	SessionID  string
	Turn       int
}

func NewSessionRepo(t *testing.T) *SessionRepo {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	if err := settings.Save(settings.ProjectPath(dir), settings.Defaults()); err != nil {
		t.Fatal(err)
	}
	if _, err := settings.EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Dir(entireBin)
	env := []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "ENTIRE_TEST_TTY=0"}
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

func TestManualCommitSessionEndToEnd(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
	out, _ := r.Hook("session-start", map[string]any{"source": "startup"})
	if !strings.Contains(out, "Powered by Entire") {
		t.Fatalf("session-start output %q", out)
	}
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n", "src/app.go": "package app\n"})

	branches := gittest.Git(t, r.Dir, "branch", "--list", "entire/*", "--format=%(refname:short)")
	if !strings.Contains(branches, "-e3b0c4") || !strings.Contains(branches, "entire/checkpoints/v1") {
		t.Fatalf("branches after two turns:\n%s", branches)
	}
	shadow := strings.Fields(strings.ReplaceAll(branches, "entire/checkpoints/v1", ""))[0]
	if log := gittest.Git(t, r.Dir, "log", "--format=%s", shadow); log != "Add a farewell too\nAdd a greeting" {
		t.Errorf("shadow log:\n%s", log)
	}
	files := gittest.Git(t, r.Dir, "ls-tree", "-r", "--name-only", shadow)
	for _, want := range []string{"hello.txt", "bye.txt", "src/app.go", ".entire/metadata/sess-1/full.jsonl", ".entire/metadata/sess-1/prompt.txt"} {
		if !strings.Contains(files, want) {
			t.Errorf("shadow tree lacks %s", want)
		}
	}

	// The user commits the agent's work with the installed hooks.
	gittest.Git(t, r.Dir, "add", "hello.txt", "bye.txt", "src/app.go")
	cmd := GitCmd(t, r, "commit", "-q", "-m", "Add greeting and farewell")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B")
	id := ""
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			id = v
		}
	}
	if len(id) != 12 {
		t.Fatalf("commit not linked:\n%s", msg)
	}
	shard := id[:2] + "/" + id[2:]
	meta := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+shard+"/0/metadata.json")
	var m map[string]any
	if err := json.Unmarshal([]byte(meta), &m); err != nil {
		t.Fatal(err)
	}
	if m["session_id"] != "sess-1" || m["checkpoints_count"] != float64(2) || m["agent"] != "Claude Code" {
		t.Errorf("session metadata %s", meta)
	}
	if prompts := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+shard+"/0/prompt.txt"); prompts != "Please add a greeting\n\n---\n\nAdd a farewell too" {
		t.Errorf("prompt.txt %q", prompts)
	}
	transcript := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+shard+"/0/full.jsonl")
	live, _ := os.ReadFile(r.Transcript)
	if transcript != strings.TrimSuffix(string(live), "\n") {
		t.Errorf("stored transcript differs from the live one")
	}
	if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "entire/checkpoints/v1"); subj != "Checkpoint: "+id {
		t.Errorf("metadata commit subject %q", subj)
	}
	if b := gittest.Git(t, r.Dir, "branch", "--list", shadow); b != "" {
		t.Errorf("shadow branch %s not cleaned up", shadow)
	}
	gittest.Fsck(t, r.Dir)
}

// GitCmd is a git command run in the session repository with the test's
// environment (the built binary on PATH).
func GitCmd(t *testing.T, r *SessionRepo, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
	return cmd
}
