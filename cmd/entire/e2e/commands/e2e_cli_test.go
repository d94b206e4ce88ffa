package commands

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Help lists `completion`, which works.
func TestHelpListsCompletion(t *testing.T) {
	t.Parallel()
	out, _, code := e2etest.RunEntire(t, t.TempDir(), nil, "", "help")
	if code != 0 || !regexp.MustCompile(`(?m)^  completion\s+\S`).MatchString(out) {
		t.Errorf("help: exit %d\n%s", code, out)
	}
	if out, _, code := e2etest.RunEntire(t, t.TempDir(), nil, "", "completion", "zsh"); code != 0 || !strings.Contains(out, "compdef") {
		t.Errorf("completion zsh: exit %d", code)
	}
}

// `entire status` outside a repository exits 1, as every error does.
func TestStatusOutsideARepository(t *testing.T) {
	t.Parallel()
	out, _, code := e2etest.RunEntire(t, t.TempDir(), nil, "", "status")
	if code != 1 || out != "✕ not a git repository\n" {
		t.Errorf("status outside a repository: exit %d %q", code, out)
	}
}

// An unknown hook verb says nothing on stdout (the agent may read it into
// its context), exits 0 and leaves a warning in the log.
func TestUnknownHookVerb(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	for _, ag := range []string{"claude-code", "gemini"} {
		out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, `{"session_id":"s1"}`, "hooks", ag, "no-such-verb")
		if out != "" || code != 0 {
			t.Errorf("hooks %s no-such-verb: exit %d, stdout %q, stderr %q", ag, code, out, errOut)
		}
	}
	if log := e2etest.LogText(r.Dir); strings.Count(log, `"unknown hook verb"`) != 2 || !strings.Contains(log, `"hook":"no-such-verb"`) {
		t.Errorf("log:\n%s", log)
	}
}

// enable lists every file it writes and keeps Claude Code's personal
// settings file out of git: through info/exclude, unless a .gitignore
// already covers it.
func TestEnableListsFilesAndIgnoresLocalSettings(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable", "--agent", "claude-code")
	if code != 0 {
		t.Fatalf("enable: exit %d %s", code, errOut)
	}
	for _, f := range []string{".claude/settings.json", ".mcp.json", ".claude/settings.local.json", ".entire/settings.json", ".entire/.gitignore", ".git/hooks/", "permissions.deny", "env",
		"personal: ignored through .git/info/exclude", "from its PATH"} {
		if !strings.Contains(out, f) {
			t.Errorf("enable's output does not name %q:\n%s", f, out)
		}
	}
	if st := gittest.Git(t, dir, "status", "--porcelain", "--untracked-files=all"); strings.Contains(st, "settings.local.json") {
		t.Errorf("settings.local.json is not ignored:\n%s", st)
	}
	exclude, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
	if strings.Count(string(exclude), "/.claude/settings.local.json") != 1 {
		t.Errorf("info/exclude:\n%s", exclude)
	}
	// Again: nothing added twice.
	if _, _, code := e2etest.RunEntire(t, dir, nil, "", "enable", "--agent", "claude-code"); code != 0 {
		t.Fatal("second enable failed")
	}
	if again, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude")); string(again) != string(exclude) {
		t.Errorf("info/exclude changed by a second enable:\n%s", again)
	}

	// A .gitignore that covers it already: info/exclude is left alone.
	dir = gittest.InitWithCommit(t)
	gittest.WriteFile(t, dir, ".gitignore", ".claude/settings.local.json\n")
	before, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
	out, _, code = e2etest.RunEntire(t, dir, nil, "", "enable", "--agent", "claude-code")
	if code != 0 || !strings.Contains(out, "personal: already ignored") {
		t.Errorf("enable with a .gitignore: exit %d\n%s", code, out)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude")); string(after) != string(before) {
		t.Errorf("info/exclude changed:\n%s", after)
	}
}
