package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestDisableNotSetUp(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	out, _, code := e2etest.RunEntire(t, dir, nil, "", "disable")
	if code != 0 || out != "Entire is not set up in this repository; nothing to disable.\n" {
		t.Errorf("exit %d stdout %q", code, out)
	}
	out, _, code = e2etest.RunEntire(t, dir, nil, "", "disable", "--uninstall")
	if code != 0 || out != "Entire is not installed in this repository.\n" {
		t.Errorf("uninstall: exit %d stdout %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".entire")); err == nil {
		t.Error("disable created .entire")
	}
	_, errOut, code := e2etest.RunEntire(t, dir, nil, "", "disable", "--force")
	if code != 1 || !strings.Contains(errOut, "--force is only used with --uninstall") {
		t.Errorf("--force alone: %d %q", code, errOut)
	}
}

func TestUninstallRestoresRepo(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	claude := "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"matcher\": \"\",\n" +
		"        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"echo mine\"\n" +
		"          }\n        ]\n      }\n    ]\n  }\n}\n"
	gittest.WriteFile(t, dir, ".claude/settings.json", claude)
	foreign := "#!/bin/sh\n# not ours\nexit 0\n"
	hook := filepath.Join(dir, ".git", "hooks", "pre-push")
	if err := os.WriteFile(hook, []byte(foreign), 0o750); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"enable"}, {"enable", "--agent", "gemini"}} {
		if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
	}
	store := session.NewStore(session.Options{GitCommonDir: filepath.Join(dir, ".git")})
	if err := store.Save(&session.State{SessionID: "s1", WorktreePath: dir, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "branch", "entire/abcdef1-123456")
	gittest.Git(t, dir, "branch", "feature")

	// Without a terminal and without --force nothing happens.
	before := repoSnapshot(t, dir)
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "disable", "--uninstall")
	wantErr := "This will remove:\n" +
		"  - the .entire/ directory (settings, logs, scratch files)\n" +
		"  - 5 git hooks (hooks they chained to are restored)\n" +
		"  - 1 session state file\n" +
		"  - 1 shadow branch (temporary checkpoints not yet committed)\n" +
		"  - agent hooks (Claude Code, Gemini CLI)\n" +
		"Cannot ask for confirmation (not a terminal). Run 'entire disable --uninstall --force' to uninstall.\n"
	if code != 1 || out != "" || errOut != wantErr {
		t.Fatalf("exit %d stdout %q\nstderr %q\nwant   %q", code, out, errOut, wantErr)
	}
	diffSnapshots(t, before, repoSnapshot(t, dir))

	out, errOut, code = e2etest.RunEntire(t, dir, nil, "", "disable", "--uninstall", "--force")
	if code != 0 || out != "Entire CLI uninstalled successfully.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "[entire] Restored pre-push from pre-push.pre-entire") {
		t.Errorf("stderr %q", errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json")); string(got) != claude {
		t.Errorf(".claude/settings.json not restored:\n%s", got)
	}
	got, err := os.ReadFile(hook)
	info, _ := os.Stat(hook)
	if err != nil || string(got) != foreign || info.Mode().Perm() != 0o750 {
		t.Errorf("foreign hook not restored: %v %q %v", err, got, info.Mode())
	}
	for _, gone := range []string{".entire", ".gemini", ".git/entire-sessions", ".git/hooks/pre-push.pre-entire",
		".git/hooks/commit-msg", ".git/hooks/post-commit", ".git/hooks/prepare-commit-msg"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s still exists", gone)
		}
	}
	branches := gittest.Git(t, dir, "branch", "--format=%(refname:short)")
	if branches != "feature\nmain" {
		t.Errorf("branches after uninstall:\n%s", branches)
	}
	gittest.Fsck(t, dir)

	out, _, code = e2etest.RunEntire(t, dir, nil, "", "disable", "--uninstall", "--force")
	if code != 0 || out != "Entire is not installed in this repository.\n" {
		t.Errorf("second uninstall: exit %d stdout %q", code, out)
	}
	out, _, _ = e2etest.RunEntire(t, dir, nil, "", "status")
	if out != "○ not set up (run `entire enable` to get started)\n" {
		t.Errorf("status after uninstall: %q", out)
	}
}
