package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/redact/redacttest"
)

func TestStatusActiveSessions(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	gittest.WriteFile(t, wt, ".entire/settings.json", "{\"strategy\": \"manual-commit\", \"enabled\": true}\n")

	f, out, errOut := testFactory(wt, nil) // status from the linked worktree sees all sessions
	now := f.Now()
	at := func(d time.Duration) *time.Time { v := now.Add(-d); return &v }
	store := session.NewStore(session.Options{GitCommonDir: filepath.Join(dir, ".git")})
	for _, st := range []*session.State{
		{SessionID: "a1b2c3d4-e5f6", WorktreePath: dir, AgentType: "Claude Code", StartedAt: *at(5 * time.Minute),
			LastInteractionTime: at(30 * time.Second),
			FirstPrompt:         "Refactor the\nparser so that it streams its input instead of loading every file at once"},
		{SessionID: "0000000-older", WorktreePath: dir, AgentType: "Claude Code", StartedAt: *at(3 * time.Hour),
			LastInteractionTime: at(3*time.Hour - 30*time.Second), FirstPrompt: "fix tests"},
		{SessionID: "gem-session-1", WorktreePath: wt, AgentType: "Gemini CLI", StartedAt: *at(26 * time.Hour),
			LastInteractionTime: at(2 * time.Hour)},
		{SessionID: "ended-session", WorktreePath: wt, AgentType: "Claude Code", StartedAt: *at(time.Hour), EndedAt: at(time.Minute)},
		{SessionID: "nowhere", StartedAt: *at(10 * time.Second)},
	} {
		if err := store.Save(st); err != nil {
			t.Fatal(err)
		}
	}
	if code := run([]string{"status"}, f); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "Enabled (manual-commit)\n" +
		"Checkpoints: kept local (remote 'origin' does not exist)\n" +
		"\nActive Sessions:\n" +
		"  (unknown)\n" +
		"    [Agent] nowhere started just now\n" +
		"  " + dir + " (main)\n" +
		"    [Claude Code] 0000000 started 3h ago\n" +
		"      \"fix tests\"\n" +
		"    [Claude Code] a1b2c3d started 5m ago, active just now\n" +
		"      \"Refactor the parser so that it streams its input instead of...\"\n" +
		"  " + wt + " (feature)\n" +
		"    [Gemini CLI] gem-ses started 1d ago, active 2h ago\n"
	if out.String() != want || errOut.Len() != 0 {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr: %s", out, want, errOut)
	}
}

func TestStatusStates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T) string
		args    []string
		want    string
		wantErr bool
	}{
		{"not a repo", func(t *testing.T) string { return t.TempDir() }, nil, "✕ not a git repository\n", true},
		{"not set up", func(t *testing.T) string { return gittest.InitWithCommit(t) }, nil, "○ not set up (run `entire enable` to get started)\n", false},
		{"pushed to origin", func(t *testing.T) string {
			dir := gittest.InitWithCommit(t)
			gittest.Git(t, dir, "remote", "add", "origin", "git@example.com:team/repo.git")
			gittest.WriteFile(t, dir, ".entire/settings.json", `{"strategy": "auto-commit"}`)
			return dir
		}, nil, "Enabled (auto-commit)\nCheckpoints: pushed to 'origin' (git@example.com:team/repo.git) with your branches\n", false},
		{"custom remote, detailed", func(t *testing.T) string {
			dir := gittest.InitWithCommit(t)
			gittest.Git(t, dir, "remote", "add", "backup", "/srv/backup.git")
			gittest.WriteFile(t, dir, ".entire/settings.json", `{"enabled": true}`)
			gittest.WriteFile(t, dir, ".entire/settings.local.json",
				`{"strategy": "auto-commit", "strategy_options": {"checkpoint_remote": "backup"}}`)
			return dir
		}, []string{"--detailed"}, "Enabled (auto-commit)\nProject, enabled (manual-commit)\nLocal, enabled (auto-commit)\n" +
			"Checkpoints: pushed to 'backup' (/srv/backup.git) with your branches (from strategy_options.checkpoint_remote in .entire/settings.local.json)\n", false},
		{"push off", func(t *testing.T) string {
			dir := gittest.InitWithCommit(t)
			gittest.Git(t, dir, "remote", "add", "origin", "git@example.com:team/repo.git")
			gittest.WriteFile(t, dir, ".entire/settings.json", `{"strategy_options": {"push_sessions": false}}`)
			return dir
		}, nil, "Enabled (manual-commit)\nCheckpoints: kept local (strategy_options.push_sessions is false)\n", false},
		{"invalid settings", func(t *testing.T) string {
			dir := gittest.InitWithCommit(t)
			gittest.WriteFile(t, dir, ".entire/settings.json", `{"bogus": 1}`)
			return dir
		}, nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, out, errOut := testFactory(tt.setup(t), nil)
			code := run(append([]string{"status"}, tt.args...), f)
			if (code != exitOK) != tt.wantErr || out.String() != tt.want {
				t.Errorf("exit %d\nstdout %q\nwant   %q\nstderr %q", code, out, tt.want, errOut)
			}
			if tt.name == "invalid settings" && !strings.Contains(errOut.String(), "bogus") {
				t.Errorf("error does not name the bad key: %q", errOut)
			}
		})
	}
}

func TestPromptPreview(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                        "",
		"short":                   "short",
		"  two\n\tlines  ":        "two lines",
		strings.Repeat("é", 60):   strings.Repeat("é", 60),
		strings.Repeat("é", 61):   strings.Repeat("é", 60) + "...",
		strings.Repeat("ab ", 30): strings.TrimSpace(strings.Repeat("ab ", 20)) + "...",
		"ends with dots...":       "ends with dots...",
	} {
		if got := promptPreview(in, 60); got != want {
			t.Errorf("promptPreview(%q) = %q, want %q", in, got, want)
		}
	}
}

// Status prints first prompts redacted, also when the session state kept
// the prompt cut in the middle of a secret (which redaction could then no
// longer recognise).
func TestStatusRedactsFirstPrompt(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	// A user pattern for 60-digit ticket secrets: their first 100 runes no
	// longer match it.
	gittest.WriteFile(t, dir, ".entire/settings.json", `{"enabled": true, "strategy_options": {"redaction": {"patterns": ["ACME-[0-9]{60}"]}}}`+"\n")
	gh := redacttest.SecretOfKind(t, 7, "github-classic").Value
	ticket := "ACME-" + strings.Repeat("1234567890", 6)
	f, out, errOut := testFactory(dir, nil)
	store := session.NewStore(session.Options{GitCommonDir: filepath.Join(dir, ".git")})
	long := "please deploy the billing service for ticket " + ticket
	cut := string([]rune(long)[:100]) + "..." // as the state keeps it
	for _, st := range []*session.State{
		{SessionID: "s1", WorktreePath: dir, AgentType: "Claude Code", StartedAt: f.Now(), FirstPrompt: "push with " + gh + " please"},
		{SessionID: "s2", WorktreePath: dir, AgentType: "Claude Code", StartedAt: f.Now(), FirstPrompt: "short " + ticket},
		{SessionID: "s3", WorktreePath: dir, AgentType: "Claude Code", StartedAt: f.Now(), FirstPrompt: cut},
	} {
		if err := store.Save(st); err != nil {
			t.Fatal(err)
		}
	}
	if code := run([]string{"status"}, f); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "Enabled (manual-commit)\n" +
		"Checkpoints: kept local (remote 'origin' does not exist)\n" +
		"\nActive Sessions:\n" +
		"  " + dir + " (main)\n" +
		"    [Claude Code] s1 started just now\n" +
		"      \"push with REDACTED please\"\n" +
		"    [Claude Code] s2 started just now\n" +
		"      \"short REDACTED\"\n" +
		"    [Claude Code] s3 started just now\n" +
		"      \"please deploy the billing service for ticket...\"\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
}
