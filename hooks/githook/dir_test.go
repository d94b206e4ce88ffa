package githook

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestHooksPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setting func(r *testRepo) string // value of core.hooksPath
		want    func(r *testRepo) string
	}{
		{"relative", func(*testRepo) string { return ".husky" },
			func(r *testRepo) string { return filepath.Join(r.dir, ".husky") }},
		{"relative nested", func(*testRepo) string { return "tools/hooks/" },
			func(r *testRepo) string { return filepath.Join(r.dir, "tools", "hooks") }},
		{"absolute", func(r *testRepo) string { return filepath.Join(r.fakeDir, "shared-hooks") },
			func(r *testRepo) string { return filepath.Join(r.fakeDir, "shared-hooks") }},
		{"tilde", func(*testRepo) string { return "~/myhooks" },
			func(r *testRepo) string { return filepath.Join(homeOf(r), "myhooks") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, true)
			r.git("config", "core.hooksPath", tt.setting(r))
			want := tt.want(r)
			if got, err := lockedHooksDir(r.opts()); err != nil || got != want {
				t.Fatalf("HooksDir = %q %v, want %q", got, err, want)
			}
			// From a subdirectory too.
			sub := filepath.Join(r.dir, "sub")
			must(t, os.MkdirAll(sub, 0o755))
			opts := r.opts()
			opts.RepoRoot = sub
			if got, err := lockedHooksDir(opts); err != nil || got != want {
				t.Fatalf("HooksDir from subdir = %q %v, want %q", got, err, want)
			}
			res, err := lockedInstall(opts)
			if err != nil || res.Changed != len(Names()) || res.Dir != want {
				t.Fatalf("Install = %+v %v", res, err)
			}
			if entries, _ := os.ReadDir(filepath.Join(r.dir, ".git", "hooks")); containsName(entries, CommitMsg) {
				t.Fatal("hooks written to .git/hooks despite core.hooksPath")
			}
			if out, err := r.commitIn(sub, "msg"); err != nil {
				t.Fatalf("commit: %v\n%s", err, out)
			}
			if calls := r.calls(); len(calls) != 3 {
				t.Fatalf("calls = %q", calls)
			}
		})
	}
}

func homeOf(r *testRepo) string {
	for _, kv := range r.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return ""
}

func containsName(entries []os.DirEntry, name string) bool {
	for _, e := range entries {
		if e.Name() == name {
			return true
		}
	}
	return false
}

func TestLinkedWorktree(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	if _, err := r.commitIn(r.dir, "initial"); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", "-b", "feature", wt)
	opts := r.opts()
	opts.RepoRoot = wt
	res, err := lockedInstall(opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(r.dir, ".git", "hooks"); res.Dir != want {
		t.Fatalf("hooks dir from worktree = %q, want %q (common dir)", res.Dir, want)
	}
	if ok, _ := lockedInstalled(r.opts()); !ok {
		t.Fatal("main worktree does not see the hooks")
	}
	if out, err := r.commitIn(wt, "in worktree"); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	calls := r.calls()
	if len(calls) != 3 || !strings.HasPrefix(calls[0], "hooks git prepare-commit-msg ") ||
		!strings.HasSuffix(calls[0], "COMMIT_EDITMSG message") {
		t.Fatalf("calls from worktree commit = %q", calls)
	}
}

func TestPrePushChain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rc       int
		wantPush bool
	}{
		{"foreign ok", 0, true},
		{"foreign fails", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, true)
			remote := t.TempDir()
			r.git("init", "-q", "--bare", remote)
			r.git("remote", "add", "origin", remote)
			if _, err := r.commitIn(r.dir, "initial"); err != nil {
				t.Fatal(err)
			}
			foreign := "#!/bin/sh\necho \"foreign $*\" >> \"$ENTIRE_FAKE_DIR/log\"\ncat > \"$ENTIRE_FAKE_DIR/stdin\"\nexit " +
				map[bool]string{true: "0", false: "1"}[tt.rc == 0] + "\n"
			writeHookFile(t, filepath.Join(r.dir, ".git", "hooks", PrePush), foreign, 0o755)
			if _, err := lockedInstall(r.opts()); err != nil {
				t.Fatal(err)
			}
			r.calls()
			r.setExit(PrePush, "1") // ours failing never blocks
			out, err := r.runIn(r.dir, "push", "-q", "origin", "main")
			if (err == nil) != tt.wantPush {
				t.Fatalf("push err = %v, want success=%v\n%s", err, tt.wantPush, out)
			}
			if !strings.Contains(out, "fake entire pre-push on stderr") {
				t.Errorf("pre-push stderr should be visible:\n%s", out)
			}
			want := []string{"hooks git pre-push origin " + remote, "foreign origin " + remote}
			if got := r.calls(); !reflect.DeepEqual(got, want) {
				t.Fatalf("calls = %q, want %q", got, want)
			}
			stdin, _ := os.ReadFile(filepath.Join(r.fakeDir, "stdin"))
			if !strings.HasPrefix(string(stdin), "refs/heads/main ") {
				t.Fatalf("foreign pre-push stdin = %q, want the ref list", stdin)
			}
		})
	}
}

// Only entire's deliberate refusal (the refusal token written to the
// verdict file the shim passes, with exit 3) blocks the push; an exit
// status alone never does (a crash may exit 3), and the chained hook is not
// run after a refusal.
func TestPrePushRefusalBlocks(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	remote := t.TempDir()
	r.git("init", "-q", "--bare", remote)
	r.git("remote", "add", "origin", remote)
	if _, err := r.commitIn(r.dir, "initial"); err != nil {
		t.Fatal(err)
	}
	if _, err := lockedInstall(r.opts()); err != nil {
		t.Fatal(err)
	}
	r.calls()
	r.setExit(PrePush, "3")
	if out, err := r.runIn(r.dir, "push", "-q", "origin", "main"); err != nil {
		t.Fatalf("exit 3 without a refusal blocked the push: %v\n%s", err, out)
	}
	r.git("commit", "-q", "--allow-empty", "-m", "second")
	r.setVerdict(PrePush, PushRefusal)
	if out, err := r.runIn(r.dir, "push", "-q", "origin", "main"); err == nil {
		t.Fatalf("push went through a refusal:\n%s", out)
	}
	r.setVerdict(PrePush, "something else")
	if out, err := r.runIn(r.dir, "push", "-q", "origin", "main"); err != nil {
		t.Fatalf("push blocked by a garbled verdict: %v\n%s", err, out)
	}
	r.git("commit", "-q", "--allow-empty", "-m", "third")
	r.setVerdict(PrePush, PushRefusal)
	r.setExit(PrePush, "2") // a token without the refusal status is not a refusal
	if out, err := r.runIn(r.dir, "push", "-q", "origin", "main"); err != nil {
		t.Fatalf("push blocked by a non-refusal failure: %v\n%s", err, out)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestUninstallCleansLegacyDirs(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	if _, err := r.commitIn(r.dir, "initial"); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", "-b", "feature", wt)
	gitDirOut, err := r.runIn(wt, "rev-parse", "--absolute-git-dir")
	must(t, err)
	wtHooks := filepath.Join(strings.TrimSpace(gitDirOut), "hooks")
	commonHooks := filepath.Join(r.dir, ".git", "hooks")
	// Entire 0.4.x shims: one in the per-worktree git dir (its quirk), one in
	// .git/hooks with a backup, and core.hooksPath set afterwards.
	old := "#!/bin/sh\n# Entire CLI hooks\nentire hooks git post-commit 2>/dev/null || true\n"
	writeHookFile(t, filepath.Join(wtHooks, PostCommit), old, 0o755)
	writeHookFile(t, filepath.Join(commonHooks, CommitMsg), old, 0o755)
	writeHookFile(t, filepath.Join(commonHooks, CommitMsg+BackupSuffix), "#!/bin/sh\n# mine\n", 0o700)
	r.git("config", "core.hooksPath", ".husky")
	opts := r.opts()
	opts.RepoRoot = wt
	if _, err := lockedInstall(opts); err != nil {
		t.Fatal(err)
	}
	res, err := lockedUninstall(opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != len(Names())+3 { // all in .husky, 2 legacy shims, 1 restored backup
		t.Fatalf("Uninstall = %+v", res)
	}
	if fileExists(filepath.Join(wtHooks, PostCommit)) {
		t.Error("per-worktree legacy shim left")
	}
	if got, _ := os.ReadFile(filepath.Join(commonHooks, CommitMsg)); string(got) != "#!/bin/sh\n# mine\n" {
		t.Errorf("legacy backup not restored: %q", got)
	}
}
