package githook

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFreshInstallAndCommit(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	var warn bytes.Buffer
	opts := r.opts()
	opts.Warn = &warn
	res, err := lockedInstall(opts)
	if err != nil {
		t.Fatal(err)
	}
	wantDir := filepath.Join(r.dir, ".git", "hooks")
	if res.Dir != wantDir || res.Changed != len(Names()) || len(res.Messages) != 0 || warn.Len() != 0 {
		t.Fatalf("Install = %+v (warn %q), want all changed in %s", res, warn.String(), wantDir)
	}
	for _, hook := range Names() {
		info, err := os.Stat(filepath.Join(wantDir, hook))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o755 {
			t.Errorf("%s mode %v", hook, info.Mode().Perm())
		}
	}
	if ok, err := lockedInstalled(r.opts()); !ok || err != nil {
		t.Fatalf("Installed = %v %v", ok, err)
	}
	if out, err := r.commitIn(r.dir, "first"); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	want := []string{
		"hooks git prepare-commit-msg .git/COMMIT_EDITMSG message",
		"hooks git commit-msg .git/COMMIT_EDITMSG",
		"hooks git post-commit",
	}
	if got := r.calls(); !reflect.DeepEqual(got, want) {
		t.Fatalf("entire calls = %q, want %q", got, want)
	}
}

func TestReinstallIsNoOp(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	writeHookFile(t, filepath.Join(r.dir, ".git", "hooks", CommitMsg), "#!/bin/sh\nexit 0\n", 0o755)
	if _, err := lockedInstall(r.opts()); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Join(r.dir, ".git", "hooks"))
	res, err := lockedInstall(r.opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != 0 || len(res.Messages) != 0 {
		t.Fatalf("second Install = %+v, want no changes", res)
	}
	if after := snapshot(t, filepath.Join(r.dir, ".git", "hooks")); !reflect.DeepEqual(before, after) {
		t.Fatal("second Install changed the hooks dir")
	}
}

func TestUpgradeOwnShims(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	dir := filepath.Join(r.dir, ".git", "hooks")
	// An Entire 0.4.x style shim is ours (marker) and gets upgraded without
	// a backup.
	old := "#!/bin/sh\n# Entire CLI hooks\nentire hooks git post-commit 2>/dev/null || true\n"
	writeHookFile(t, filepath.Join(dir, PostCommit), old, 0o755)
	res, err := lockedInstall(r.opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != len(Names()) || len(res.Messages) != 0 || fileExists(filepath.Join(dir, PostCommit+BackupSuffix)) {
		t.Fatalf("Install over old shim = %+v", res)
	}
	// Switching to local dev rewrites them all.
	opts := r.opts()
	opts.LocalDev = true
	res, err = lockedInstall(opts)
	if err != nil || res.Changed != len(Names()) {
		t.Fatalf("local dev Install = %+v %v", res, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, CommitMsg))
	if !strings.Contains(string(data), "go run ./cmd/entire/main.go hooks git commit-msg \"$1\" || true") {
		t.Fatalf("local dev shim:\n%s", data)
	}
}

func TestScriptFailureSemantics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		hook       string
		code       string
		wantCommit bool
	}{
		{PrepareCommitMsg, "3", true},
		{CommitMsg, "1", true}, // an older or crashing entire never aborts the commit
		{CommitMsg, "137", true},
		{CommitMsg, "0", true},
		{PostCommit, "5", true},
	}
	for _, tt := range tests {
		t.Run(tt.hook+"/"+tt.code, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, true)
			if _, err := lockedInstall(r.opts()); err != nil {
				t.Fatal(err)
			}
			r.setExit(tt.hook, tt.code)
			out, err := r.commitIn(r.dir, "msg")
			if (err == nil) != tt.wantCommit {
				t.Fatalf("commit err = %v, want success=%v\n%s", err, tt.wantCommit, out)
			}
			// prepare-commit-msg and post-commit discard entire's stderr.
			hidden := tt.hook != CommitMsg
			if hidden && strings.Contains(out, "fake entire "+tt.hook) {
				t.Fatalf("stderr of %s not discarded:\n%s", tt.hook, out)
			}
		})
	}
}

func TestMissingBinaryNeverBlocks(t *testing.T) {
	t.Parallel()
	r := newRepo(t, false)
	if _, err := lockedInstall(r.opts()); err != nil {
		t.Fatal(err)
	}
	out, err := r.commitIn(r.dir, "no entire")
	if err != nil {
		t.Fatalf("commit blocked without entire: %v\n%s", err, out)
	}
	for _, hook := range []string{PrepareCommitMsg, CommitMsg, PostCommit} {
		want := fmt.Sprintf("[entire] 'entire' not found on PATH; skipping the %s hook", hook)
		if !strings.Contains(out, want) {
			t.Errorf("missing warning %q in:\n%s", want, out)
		}
	}
}

func TestForeignHookChained(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		hook       string
		foreignRC  int
		wantCommit bool
	}{
		{"commit-msg fails", CommitMsg, 1, false},
		{"commit-msg ok", CommitMsg, 0, true},
		{"prepare-commit-msg fails", PrepareCommitMsg, 2, false},
		{"post-commit fails", PostCommit, 1, true}, // git ignores post-commit status
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, true)
			dir := filepath.Join(r.dir, ".git", "hooks")
			foreign := fmt.Sprintf("#!/bin/sh\necho \"foreign $*\" >> \"$ENTIRE_FAKE_DIR/log\"\nexit %d\n", tt.foreignRC)
			writeHookFile(t, filepath.Join(dir, tt.hook), foreign, 0o755)
			var warn bytes.Buffer
			opts := r.opts()
			opts.Warn = &warn
			res, err := lockedInstall(opts)
			if err != nil {
				t.Fatal(err)
			}
			msg := fmt.Sprintf("[entire] Backed up existing %s to %s.pre-entire", tt.hook, tt.hook)
			if !reflect.DeepEqual(res.Messages, []string{msg}) || warn.String() != msg+"\n" {
				t.Fatalf("messages = %q / %q", res.Messages, warn.String())
			}
			if got, _ := os.ReadFile(filepath.Join(dir, tt.hook+BackupSuffix)); string(got) != foreign {
				t.Fatalf("backup content = %q", got)
			}
			out, err := r.commitIn(r.dir, "msg")
			if (err == nil) != tt.wantCommit {
				t.Fatalf("commit err = %v, want success=%v\n%s", err, tt.wantCommit, out)
			}
			calls := r.calls()
			// Ours runs first, then the foreign hook with the same arguments.
			var ours, theirs int = -1, -1
			for i, c := range calls {
				if strings.HasPrefix(c, "hooks git "+tt.hook) {
					ours = i
				}
				if strings.HasPrefix(c, "foreign") {
					theirs = i
					if tt.hook == CommitMsg && c != "foreign .git/COMMIT_EDITMSG" {
						t.Errorf("foreign hook args: %q", c)
					}
				}
			}
			if ours < 0 || theirs != ours+1 {
				t.Fatalf("calls %q: want ours then foreign", calls)
			}
		})
	}
}

func TestForeignHookReplacedAfterInstall(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	dir := filepath.Join(r.dir, ".git", "hooks")
	writeHookFile(t, filepath.Join(dir, CommitMsg), "#!/bin/sh\n# v1\n", 0o755)
	if _, err := lockedInstall(r.opts()); err != nil {
		t.Fatal(err)
	}
	// Another tool overwrites our shim.
	writeHookFile(t, filepath.Join(dir, CommitMsg), "#!/bin/sh\n# v2\n", 0o700)
	res, err := lockedInstall(r.opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != 1 || len(res.Messages) != 2 {
		t.Fatalf("Install = %+v", res)
	}
	for name, want := range map[string]string{
		CommitMsg + BackupSuffix:        "#!/bin/sh\n# v2\n",
		CommitMsg + BackupSuffix + ".1": "#!/bin/sh\n# v1\n",
	} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestUninstallRestoresExactly(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	dir := filepath.Join(r.dir, ".git", "hooks")
	writeHookFile(t, filepath.Join(dir, CommitMsg), "#!/bin/sh\nexit 0\n", 0o700)
	writeHookFile(t, filepath.Join(dir, PrePush), "#!/bin/bash\n# no trailing newline", 0o751)
	writeHookFile(t, filepath.Join(dir, PostCommit), "not executable\n", 0o644)
	before := snapshot(t, dir)
	if res, err := lockedInstall(r.opts()); err != nil || res.Changed != len(Names()) || len(res.Messages) != 3 {
		t.Fatalf("Install = %+v %v", res, err)
	}
	if ok, _ := lockedInstalled(r.opts()); !ok {
		t.Fatal("not Installed after Install")
	}
	res, err := lockedUninstall(r.opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != len(Names())+3 { // ours removed + 3 restored
		t.Fatalf("Uninstall = %+v", res)
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatalf("hooks dir after uninstall differs:\nbefore %v\nafter  %v", before, after)
	}
	if ok, _ := lockedInstalled(r.opts()); ok {
		t.Fatal("Installed after Uninstall")
	}
	if res, err := lockedUninstall(r.opts()); err != nil || res.Changed != 0 {
		t.Fatalf("second Uninstall = %+v %v", res, err)
	}
}

func TestUninstallLeavesForeignAndBackup(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	dir := filepath.Join(r.dir, ".git", "hooks")
	writeHookFile(t, filepath.Join(dir, CommitMsg), "#!/bin/sh\n# original\n", 0o755)
	if _, err := lockedInstall(r.opts()); err != nil {
		t.Fatal(err)
	}
	writeHookFile(t, filepath.Join(dir, CommitMsg), "#!/bin/sh\n# newcomer\n", 0o755)
	res, err := lockedUninstall(r.opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != len(Names())-1 || len(res.Messages) != 1 {
		t.Fatalf("Uninstall = %+v", res)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, CommitMsg)); string(got) != "#!/bin/sh\n# newcomer\n" {
		t.Fatalf("foreign hook touched: %q", got)
	}
	if !fileExists(filepath.Join(dir, CommitMsg+BackupSuffix)) {
		t.Fatal("backup removed although its path is occupied")
	}
}

func TestInstalledPartial(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	if ok, err := lockedInstalled(r.opts()); ok || err != nil {
		t.Fatalf("Installed on fresh repo = %v %v", ok, err)
	}
	if _, err := lockedInstall(r.opts()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(r.dir, ".git", "hooks", PrePush)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := lockedInstalled(r.opts()); ok {
		t.Fatal("Installed with a hook missing")
	}
	// Self-healing reinstall writes only the missing one.
	if res, err := lockedInstall(r.opts()); err != nil || res.Changed != 1 {
		t.Fatalf("reinstall = %+v %v", res, err)
	}
}

// CurrentIn tells current shims from older ones, which the hooks'
// self-healing then rewrites.
func TestCurrentIn(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	dir := filepath.Join(r.dir, ".git", "hooks")
	if CurrentIn(dir, false) {
		t.Fatal("CurrentIn on a repository without hooks")
	}
	if _, err := lockedInstall(r.opts()); err != nil {
		t.Fatal(err)
	}
	if !CurrentIn(dir, false) || CurrentIn(dir, true) {
		t.Fatalf("CurrentIn after Install = %v (local dev %v)", CurrentIn(dir, false), CurrentIn(dir, true))
	}
	old := "#!/bin/sh\n# Entire CLI hooks\nentire hooks git commit-msg \"$1\" || exit 1\n"
	writeHookFile(t, filepath.Join(dir, CommitMsg), old, 0o755)
	if CurrentIn(dir, false) {
		t.Fatal("CurrentIn with an older commit-msg shim")
	}
	if ok, _ := lockedInstalled(r.opts()); !ok {
		t.Fatal("an older shim is still installed")
	}
}

func TestNotARepo(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	opts := r.opts()
	opts.RepoRoot = t.TempDir()
	if _, err := lockedInstall(opts); err == nil {
		t.Fatal("Install outside a repository: want error")
	}
}

func TestRegeneratedForeignHookNotDuplicated(t *testing.T) {
	t.Parallel()
	r := newRepo(t, true)
	dir := filepath.Join(r.dir, ".git", "hooks")
	husky := "#!/bin/sh\n. \"$(dirname \"$0\")/h\"\n"
	writeHookFile(t, filepath.Join(dir, CommitMsg), husky, 0o755)
	if _, err := lockedInstall(r.opts()); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		// The tool regenerates the same hook over our shim.
		writeHookFile(t, filepath.Join(dir, CommitMsg), husky, 0o755)
		res, err := lockedInstall(r.opts())
		if err != nil || res.Changed != 1 || len(res.Messages) != 1 {
			t.Fatalf("round %d: Install = %+v %v", round, res, err)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, CommitMsg+BackupSuffix+".*")); len(matches) != 0 {
		t.Fatalf("backups piled up: %v", matches)
	}
	if ok, _ := lockedInstalled(r.opts()); !ok {
		t.Fatal("not installed")
	}
}
