package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

const (
	pushLineNoRemote = "Checkpoints stay local for now: remote 'origin' does not exist yet " +
		"(once it does they are pushed to it with your branches; set strategy_options.push_sessions: false to keep them local).\n"
	pushLineOrigin = "Checkpoints will be pushed to 'origin' with your branches " +
		"(set strategy_options.checkpoint_remote to change, or push_sessions: false to keep them local).\n"
	pushLineOff = "Checkpoints stay local (strategy_options.push_sessions is false).\n"
)

// repoSnapshot records every file Entire may touch (work-tree config, git
// hooks, refs) so that tests can assert that a command changed nothing.
func repoSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	for _, sub := range []string{".entire", ".claude", ".gemini", ".git/hooks", ".git/refs", ".git/entire-sessions"} {
		root := filepath.Join(dir, sub)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			snap[filepath.ToSlash(rel)] = info.Mode().String() + "\n" + string(data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	snap["<refs>"] = gittest.Git(t, dir, "for-each-ref")
	return snap
}

func diffSnapshots(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed:\nbefore %q\nafter  %q", k, v, after[k])
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// hookCommands returns every command of event in a Claude/Gemini settings
// file's "hooks" object.
func hookCommands(settings map[string]any, event string) []string {
	hooks, _ := settings["hooks"].(map[string]any)
	groups, _ := hooks[event].([]any)
	var out []string
	for _, g := range groups {
		entries, _ := g.(map[string]any)["hooks"].([]any)
		for _, e := range entries {
			out = append(out, e.(map[string]any)["command"].(string))
		}
	}
	return out
}

func TestEnableModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		args         []string
		wantOut      string
		wantSettings string
		check        func(t *testing.T, dir string)
	}{
		{
			name: "interactive",
			args: []string{"enable"},
			wantOut: "Agent: Claude Code (use --agent to change)\n✓ Hooks installed\n" +
				"✓ Project configured (.entire/settings.json)\n" + enableFiles("claude-code", "settings.json", "ignored through .git/info/exclude") + pushLineNoRemote + "\nReady.\n",
			wantSettings: withRefs("{\n  \"strategy\": \"manual-commit\",\n  \"enabled\": true\n}\n"),
			check:        checkClaudeHooks,
		},
		{
			name: "agent claude-code",
			args: []string{"enable", "--agent", "claude-code"},
			wantOut: "Agent: Claude Code\nInstalled 10 hooks for Claude Code - Anthropic's agentic coding CLI\n" +
				"✓ Project configured (.entire/settings.json)\n" + enableFiles("claude-code", "settings.json", "ignored through .git/info/exclude") + pushLineNoRemote + "\nReady.\n",
			wantSettings: withRefs("{\n  \"strategy\": \"manual-commit\",\n  \"enabled\": true\n}\n"),
			check:        checkClaudeHooks,
		},
		{
			name: "agent gemini, auto-commit, no push",
			args: []string{"enable", "--agent=gemini", "--strategy", "auto-commit", "--skip-push-sessions"},
			wantOut: "Agent: Gemini CLI\nInstalled 7 hooks for Gemini CLI - Google's AI coding agent (Preview)\n" +
				"✓ Project configured (.entire/settings.json)\n" + enableFiles("gemini", "settings.json", "") + pushLineOff + "\nReady.\n",
			wantSettings: withRefs("{\n  \"strategy\": \"auto-commit\",\n  \"enabled\": true,\n" +
				"  \"strategy_options\": {\n    \"push_sessions\": false\n  }\n}\n"),
			check: func(t *testing.T, dir string) {
				g := readJSON(t, filepath.Join(dir, ".gemini", "settings.json"))
				if cfg, _ := g["hooksConfig"].(map[string]any); cfg["enabled"] != true {
					t.Errorf("hooksConfig = %v", g["hooksConfig"])
				}
				if got := hookCommands(g, "SessionStart"); len(got) != 1 || !strings.HasPrefix(got[0], "entire hooks gemini session-start") {
					t.Errorf("SessionStart = %q", got)
				}
				checkGeminiHooks(t, dir, nil)
				if _, err := os.Stat(filepath.Join(dir, ".claude")); err == nil {
					t.Error(".claude created for gemini")
				}
			},
		},
		{
			name: "strategy only",
			args: []string{"enable", "--strategy", "auto-commit"},
			wantOut: "✓ Hooks installed\n✓ Project configured (.entire/settings.json)\n" +
				enableFiles("claude-code", "settings.json", "ignored through .git/info/exclude") + pushLineNoRemote + "\nReady.\n",
			wantSettings: withRefs("{\n  \"strategy\": \"auto-commit\",\n  \"enabled\": true\n}\n"),
			check:        checkClaudeHooks,
		},
		{
			name: "local-dev and telemetry opt-out",
			args: []string{"enable", "--agent", "claude-code", "--local-dev", "--telemetry=false", "--ignore-untracked"},
			wantOut: "Agent: Claude Code\nInstalled 10 hooks for Claude Code - Anthropic's agentic coding CLI\n" +
				"✓ Project configured (.entire/settings.json)\n" + enableFiles("claude-code", "settings.json", "ignored through .git/info/exclude") + pushLineNoRemote + "\nReady.\n",
			wantSettings: withRefs("{\n  \"strategy\": \"manual-commit\",\n  \"enabled\": true,\n  \"local_dev\": true,\n  \"telemetry\": false\n}\n"),
			check: func(t *testing.T, dir string) {
				c := readJSON(t, filepath.Join(dir, ".claude", "settings.json"))
				if got := hookCommands(c, "Stop"); len(got) != 1 || !strings.HasPrefix(got[0], "go run ${CLAUDE_PROJECT_DIR}/cmd/entire/main.go hooks claude-code stop") {
					t.Errorf("Stop = %q", got)
				}
				data, _ := os.ReadFile(filepath.Join(dir, ".git", "hooks", "post-commit"))
				if !strings.Contains(string(data), "go run ./cmd/entire/main.go") {
					t.Errorf("post-commit shim is not local-dev:\n%s", data)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			out, errOut, code := e2etest.RunEntire(t, dir, nil, "", tt.args...)
			if code != 0 || out != tt.wantOut {
				t.Fatalf("exit %d\nstdout %q\nwant   %q\nstderr %s", code, out, tt.wantOut, errOut)
			}
			// A new repository gets the git-refs layout (SPEC 10.1): no
			// metadata branch.
			if strings.Contains(errOut, "Created orphan branch") {
				t.Errorf("stderr: %q", errOut)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, ".entire", "settings.json")); string(got) != tt.wantSettings {
				t.Errorf("settings.json = %q, want %q", got, tt.wantSettings)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, ".entire", ".gitignore")); string(got) != "tmp/\nsettings.local.json\nmetadata/\nlogs/\n" {
				t.Errorf(".gitignore = %q", got)
			}
			e2etest.AssertGitHooks(t, dir, true)
			if got, _ := gittest.GitErr(dir, "rev-parse", "--verify", "-q", checkpoint.MetadataBranch); got != "" {
				t.Error("a metadata branch was created in the git-refs layout")
			}
			tt.check(t, dir)
			gittest.Fsck(t, dir)

			before := repoSnapshot(t, dir)
			_, errOut, code = e2etest.RunEntire(t, dir, nil, "", tt.args...)
			if code != 0 {
				t.Fatalf("second enable: exit %d %s", code, errOut)
			}
			if strings.Contains(errOut, "Created orphan branch") {
				t.Errorf("second enable created the branch again")
			}
			diffSnapshots(t, before, repoSnapshot(t, dir))
		})
	}
}

func checkClaudeHooks(t *testing.T, dir string) {
	t.Helper()
	c := readJSON(t, filepath.Join(dir, ".claude", "settings.json"))
	for event, want := range map[string]string{
		"SessionStart": "entire hooks claude-code session-start", "SessionEnd": "entire hooks claude-code session-end",
		"Stop": "entire hooks claude-code stop", "UserPromptSubmit": "entire hooks claude-code user-prompt-submit",
		"PreToolUse": "entire hooks claude-code pre-task",
	} {
		if got := hookCommands(c, event); len(got) != 1 || got[0] != want {
			t.Errorf("%s = %q, want %q", event, got, want)
		}
	}
	if got := hookCommands(c, "PostToolUse"); len(got) != 3 {
		t.Errorf("PostToolUse = %q", got)
	}
	deny, _ := c["permissions"].(map[string]any)["deny"].([]any)
	if len(deny) != 1 || deny[0] != "Read(./.entire/metadata/**)" {
		t.Errorf("deny = %v", deny)
	}
}

func TestEnableInteractiveAlreadyEnabled(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.Git(t, dir, "remote", "add", "origin", "https://example.com/repo.git")
	if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable"); code != 0 {
		t.Fatalf("enable: %d %s", code, errOut)
	}
	before := repoSnapshot(t, dir)
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable")
	want := "Already enabled. Everything looks good.\nAgent: Claude Code\nConfig: .entire/settings.json\n" + pushLineOrigin
	if code != 0 || out != want || errOut != "" {
		t.Fatalf("exit %d\nstdout %q\nwant   %q\nstderr %q", code, out, want, errOut)
	}
	diffSnapshots(t, before, repoSnapshot(t, dir))

	// A flag that changes the configuration runs the setup again; the
	// shared project file is left alone when it already says it all.
	out, _, code = e2etest.RunEntire(t, dir, nil, "", "enable", "--force")
	want = "Agent: Claude Code (use --agent to change)\n✓ Hooks installed\n" +
		"✓ Project configured (.entire/settings.json)\n" + enableFiles("claude-code", "settings.json", "already ignored") + pushLineOrigin + "\nReady.\n"
	if code != 0 || out != want {
		t.Fatalf("enable --force: exit %d\nstdout %q\nwant   %q", code, out, want)
	}
	diffSnapshots(t, before, repoSnapshot(t, dir))
}

// An install log that cannot be read is reported when enable refreshes an
// installed setup, and left as it is.
func TestEnableAlreadyEnabledReportsUnreadableInstallLog(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable"); code != 0 {
		t.Fatalf("enable: %d %s", code, errOut)
	}
	logPath := filepath.Join(dir, ".git", "entire-install.json") // the install log
	if err := os.WriteFile(logPath, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable")
	if code != 0 || !strings.HasPrefix(out, "Already enabled.") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "Warning: read install log") {
		t.Errorf("stderr %q does not report the install log", errOut)
	}
	if b, _ := os.ReadFile(logPath); string(b) != "{not json" {
		t.Errorf("install log rewritten: %q", b)
	}
}

func TestEnableWritesLocalWhenProjectDiffers(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.WriteFile(t, dir, ".entire/settings.json", "{\n  \"strategy\": \"auto-commit\",\n  \"enabled\": false\n}\n")
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable")
	want := "Agent: Claude Code (use --agent to change)\n" +
		"Info: Project settings exist. Saving to settings.local.json instead.\n" +
		"  Use --project to update the project settings file.\n" +
		"✓ Hooks installed\n✓ Project configured (.entire/settings.local.json)\n" + enableFiles("claude-code", "settings.local.json", "ignored through .git/info/exclude") + pushLineNoRemote + "\nReady.\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d\nstdout %q\nwant   %q\nstderr %s", code, out, want, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".entire", "settings.local.json")); string(got) != withRefs("{\n  \"enabled\": true\n}\n") {
		t.Errorf("local settings = %q", got)
	}
	out, _, _ = e2etest.RunEntire(t, dir, nil, "", "status")
	if !strings.HasPrefix(out, "Enabled (auto-commit)\n") {
		t.Errorf("status = %q", out)
	}
}

func TestEnableForeignHookChained(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	foreign := "#!/bin/sh\necho foreign pre-push \"$@\" >> \"$(git rev-parse --git-dir)/foreign.log\"\n"
	hook := filepath.Join(dir, ".git", "hooks", "pre-push")
	if err := os.WriteFile(hook, []byte(foreign), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable")
	if code != 0 || !strings.Contains(errOut, "[entire] Backed up existing pre-push to pre-push.pre-entire") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if got, _ := os.ReadFile(hook + ".pre-entire"); string(got) != foreign {
		t.Errorf("backup = %q", got)
	}
	shim, _ := os.ReadFile(hook)
	if !bytes.Contains(shim, []byte(githook.Marker)) || !bytes.Contains(shim, []byte("pre-push.pre-entire")) {
		t.Errorf("shim does not chain:\n%s", shim)
	}
}

func TestEnableErrors(t *testing.T) {
	t.Parallel()
	agents := "Available agents:\n  antigravity\n  claude-code    (default)\n  codex\n  copilot-cli\n  cursor\n  droid\n  gemini\n  opencode\n  pi\n\nUsage: entire enable --agent <agent-name>\nAny other agent: a program entire-agent-<name> on PATH (Entire's external-agent protocol).\n"
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"empty agent", []string{"enable", "--agent", ""}, agents},
		{"agent without value", []string{"enable", "--agent"}, agents},
		{"unknown agent", []string{"enable", "--agent", "windsurf"}, "Unknown agent \"windsurf\".\n\n" + agents},
		{"unknown strategy", []string{"enable", "--strategy", "shadow"}, "unknown strategy: shadow (use manual-commit or auto-commit)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			out, errOut, code := e2etest.RunEntire(t, dir, nil, "", tt.args...)
			if code != 1 || out != "" || errOut != tt.wantErr {
				t.Fatalf("exit %d\nstdout %q\nstderr %q\nwant   %q", code, out, errOut, tt.wantErr)
			}
			if _, err := os.Stat(filepath.Join(dir, ".entire")); err == nil {
				t.Error(".entire created on error")
			}
		})
	}
	_, errOut, code := e2etest.RunEntire(t, gittest.InitWithCommit(t), nil, "", "enable", "--local", "--project")
	if code != 1 || !strings.HasSuffix(errOut, "Error: Invalid usage: cannot specify both --project and --local\n") {
		t.Errorf("--local --project: %d %q", code, errOut)
	}
}

func TestEnableOutsideRepo(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"enable"}, {"enable", "git-hook"}, {"disable"}, {"disable", "--uninstall", "--force"}} {
		out, errOut, code := e2etest.RunEntire(t, t.TempDir(), nil, "", args...)
		want := "Not a git repository. Please run 'entire " + strings.Join(args[:len(args)-countFlags(args)], " ") +
			"' from within a git repository.\n"
		if code != 1 || out != "" || errOut != want {
			t.Errorf("%v: exit %d stdout %q stderr %q, want %q", args, code, out, errOut, want)
		}
	}
}

func countFlags(args []string) int {
	n := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			n++
		}
	}
	return n
}

func TestEnableEmptyRepo(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	out, errOut, code := e2etest.RunEntire(t, dir, []string{"ENTIRE_TELEMETRY_OPTOUT=1"}, "", "enable")
	if code != 0 || !strings.HasSuffix(out, "\nReady.\n") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if !strings.HasPrefix(errOut, "Note: this repository has no commits yet. Checkpoints start after the first commit.\n") {
		t.Errorf("stderr lacks the no-commit note: %q", errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".entire", "settings.json")); !bytes.Contains(got, []byte(`"telemetry": false`)) {
		t.Errorf("opt-out not recorded: %s", got)
	}
	e2etest.AssertGitHooks(t, dir, true)
	// The first commit goes through the installed hooks.
	gittest.WriteFile(t, dir, "a.txt", "a\n")
	gittest.Git(t, dir, "add", "a.txt")
	gittest.Git(t, dir, "commit", "-q", "-m", "first")
	gittest.Fsck(t, dir)
}

func TestEnableGitHook(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	out, _, code := e2etest.RunEntire(t, dir, nil, "", "enable", "git-hook")
	if code != 0 || out != "✓ Installed 5 git hooks in .git/hooks\n" {
		t.Fatalf("exit %d stdout %q", code, out)
	}
	e2etest.AssertGitHooks(t, dir, true)
	if _, err := os.Stat(filepath.Join(dir, ".entire")); err == nil {
		t.Error("enable git-hook created .entire")
	}
	out, _, _ = e2etest.RunEntire(t, dir, nil, "", "enable", "git-hook")
	if out != "✓ Git hooks already installed in .git/hooks\n" {
		t.Errorf("second run: %q", out)
	}
}

// enableFiles is the list of files enable prints for an agent, the settings
// file it wrote and how .claude/settings.local.json is ignored.
func enableFiles(agentName, settingsFile, ignored string) string {
	var b strings.Builder
	b.WriteString("Files:\n")
	row := func(path, what string) { fmt.Fprintf(&b, "  %-28s %s\n", path, what) }
	if agentName == "claude-code" {
		row(".claude/settings.json", "hooks, permissions.deny, env (commit it: teammates' sessions are recorded too)")
		row(".mcp.json", "the entire MCP server (commit it)")
		row(".claude/settings.local.json", "approves that server for you (personal: "+ignored+")")
	} else {
		row(".gemini/settings.json", "hooks, the entire MCP server (commit it)")
	}
	if settingsFile == "settings.local.json" {
		row(".entire/settings.local.json", "your settings (personal: ignored by .entire/.gitignore)")
	} else {
		row(".entire/settings.json", "project settings (commit it)")
	}
	row(".entire/.gitignore", "keeps entire's local files out of git (commit it)")
	row(".git/hooks/", "git hooks prepare-commit-msg, commit-msg, post-commit, post-rewrite, pre-push (not versioned)")
	b.WriteString("The agent runs `entire` from its PATH: install it where the agent's process finds it.\n")
	return b.String()
}

// TestExternalAgentNotUsable: a program entire-agent-<name> on PATH that
// does not answer info with protocol version 1 is named, with why, by
// enable --agent and doctor; nothing is installed.
func TestExternalAgentNotUsable(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	bin := t.TempDir()
	prog := filepath.Join(bin, "entire-agent-broken")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho '{\"protocol_version\": 2, \"name\": \"broken\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := e2etest.ProgramEnv(t)
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + bin + string(os.PathListSeparator) + v
		}
	}
	_, errOut, code := e2etest.RunEntire(t, dir, env, "", "enable", "--agent", "broken")
	if code != 1 || !strings.Contains(errOut, `Unknown agent "broken": `+prog+` is not usable: `) || !strings.Contains(errOut, "protocol version 2") {
		t.Errorf("enable --agent broken: %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".entire")); err == nil {
		t.Error(".entire created for an agent that is not usable")
	}
	e2etest.RunEntire(t, dir, env, "", "enable")
	gittest.WriteFile(t, dir, ".entire/settings.local.json", `{"external_agents": true}`+"\n")
	out, _, _ := e2etest.RunEntire(t, dir, env, "", "doctor")
	if !strings.Contains(out, "! External agent broken skipped: ") {
		t.Errorf("doctor does not name the skipped program:\n%s", out)
	}
}

// withRefs is settings text with the checkpoints block a first enable
// writes (git-refs, SPEC 10.1) added at its end.
func withRefs(settingsText string) string {
	return strings.TrimSuffix(settingsText, "\n}\n") + ",\n  \"checkpoints\": {\n    \"primary\": {\n      \"type\": \"git-refs\"\n    }\n  }\n}\n"
}

// --checkpoints git-branch keeps the 0.4.x layout: the metadata branch is
// created and the settings say so.
func TestEnableCheckpointsGitBranch(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	_, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable", "--agent", "claude-code", "--checkpoints", "git-branch")
	if code != 0 || !strings.Contains(errOut, "✓ Created orphan branch 'entire/checkpoints/v1' for session metadata\n") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".entire", "settings.json")); !strings.Contains(string(got), `"type": "git-branch"`) {
		t.Errorf("settings.json = %s", got)
	}
	if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable", "--checkpoints", "s3"); code == 0 || !strings.Contains(errOut, "--checkpoints takes git-refs or git-branch") {
		t.Errorf("--checkpoints s3: exit %d %q", code, errOut)
	}
}
