//go:build torture

package rewind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent/claudecode"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// geminiSessionFiles lists the Gemini CLI session files under home.
func geminiSessionFiles(t *testing.T, home string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*"))
	return m
}

// rewind --logs-only (and --to of a committed point) in another clone
// writes each transcript where this machine's agent looks for the session,
// as resume does: Claude Code's ~/.claude/projects/<sanitized root>/<id>.jsonl
// and Gemini CLI's chats folder of the project, not the paths the recording
// machine had.
func TestRewindLogsOnlyRestoresIntoAgentProjectDir(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	g := e2etest.NewGeminiSession(r, "7f3c2a10-gemini-session", false)
	g.PlayTurn("Create the parser", map[string]string{"parser.go": "package parser\n"})
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "greeting and parser")
	commit := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	remote := e2etest.Publish(t, r)
	liveClaude, _ := os.ReadFile(r.Transcript)
	// The recording machine's files are gone: nothing may be written there.
	os.Remove(r.Transcript)
	os.Remove(g.Path)

	clone := e2etest.SecondClone(t, remote, "feature", "entire/checkpoints/v1")
	gittest.Git(t, clone, "checkout", "-q", "-b", "feature", "origin/feature")
	gittest.Git(t, clone, "branch", "-q", "entire/checkpoints/v1", "origin/entire/checkpoints/v1")
	root := gittest.Git(t, clone, "rev-parse", "--show-toplevel")
	home := t.TempDir()
	for _, d := range []string{".claude", ".gemini"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home}
	claudePath := filepath.Join(home, ".claude", "projects", claudecode.SanitizePath(root), "sess-1.jsonl")

	for _, args := range [][]string{{"--logs-only"}, {}} {
		os.RemoveAll(filepath.Join(home, ".claude", "projects"))
		os.RemoveAll(filepath.Join(home, ".gemini", "tmp"))
		_, errOut, code := e2etest.RunEntire(t, clone, env, "", append([]string{"rewind", "--to", commit}, args...)...)
		if code != 0 || !strings.Contains(errOut, "claude -r sess-1") || !strings.Contains(errOut, "gemini --resume 7f3c2a10-gemini-session") {
			t.Fatalf("rewind --to %v: %d\n%s", args, code, errOut)
		}
		if got, err := os.ReadFile(claudePath); err != nil || string(got) != string(liveClaude) {
			t.Errorf("rewind --to %v: Claude transcript not at %s (%v)", args, claudePath, err)
		}
		if gem := geminiSessionFiles(t, home); len(gem) != 1 {
			t.Errorf("rewind --to %v: Gemini session files %v", args, gem)
		}
		for _, p := range []string{r.Transcript, g.Path} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("rewind --to %v wrote the recording machine's path %s", args, p)
			}
		}
	}
	// resume puts the Gemini session in the same file.
	rewound := geminiSessionFiles(t, home)
	os.RemoveAll(filepath.Join(home, ".gemini", "tmp"))
	if _, errOut, code := e2etest.RunEntire(t, clone, env, "", "resume", "feature", "--force"); code != 0 {
		t.Fatalf("resume: %d %s", code, errOut)
	}
	if resumed := geminiSessionFiles(t, home); len(resumed) != 1 || len(rewound) != 1 || resumed[0] != rewound[0] {
		t.Errorf("Gemini session: rewind wrote %v, resume %v", rewound, resumed)
	}
}
