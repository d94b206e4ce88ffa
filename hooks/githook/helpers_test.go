package githook

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeEntire is a stand-in for the entire binary: it appends its argv to
// $ENTIRE_FAKE_DIR/log and exits with the code in $ENTIRE_FAKE_DIR/exit-<hook>
// (default 0). When $ENTIRE_FAKE_DIR/verdict-<hook> exists, its content is
// written to the verdict file the shim names in $ENTIRE_PRE_PUSH_VERDICT, as
// entire does when it refuses a push.
const fakeEntire = `#!/bin/sh
echo "$*" >> "$ENTIRE_FAKE_DIR/log"
echo "fake entire $3 on stderr" >&2
if [ -f "$ENTIRE_FAKE_DIR/verdict-$3" ] && [ -n "$ENTIRE_PRE_PUSH_VERDICT" ]; then
  cat "$ENTIRE_FAKE_DIR/verdict-$3" > "$ENTIRE_PRE_PUSH_VERDICT"
fi
code=$(cat "$ENTIRE_FAKE_DIR/exit-$3" 2>/dev/null || echo 0)
exit $code
`

// execMu prevents "text file busy" (ETXTBSY) in parallel tests: a process
// forked by one test inherits, until it execs, the write descriptor of a
// hook file another test is writing, and git then cannot exec that hook.
// Code that writes hook files holds the write lock; code that forks only
// (git commands of the tests) holds the read lock. Production code writes
// hooks and forks sequentially, so it does not need this.
var execMu sync.RWMutex

func lockedInstall(opts Options) (Result, error) {
	execMu.Lock()
	defer execMu.Unlock()
	return Install(opts)
}

func lockedUninstall(opts Options) (Result, error) {
	execMu.Lock()
	defer execMu.Unlock()
	return Uninstall(opts)
}

func lockedInstalled(opts Options) (bool, error) {
	execMu.RLock()
	defer execMu.RUnlock()
	return Installed(opts)
}

func lockedHooksDir(opts Options) (string, error) {
	execMu.RLock()
	defer execMu.RUnlock()
	return opts.HooksDir()
}

// testRepo is a real git repository in a temp dir with an isolated git
// environment and a fake entire on PATH.
type testRepo struct {
	t       *testing.T
	dir     string
	fakeDir string // holds the fake binary, its log and exit codes
	env     []string
}

// systemPath is PATH without directories that contain a real entire.
func systemPath() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "entire")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func newRepo(t *testing.T, withEntire bool) *testRepo {
	t.Helper()
	r := &testRepo{t: t, dir: t.TempDir(), fakeDir: t.TempDir()}
	home := t.TempDir()
	path := systemPath()
	if withEntire {
		writeHookFile(t, filepath.Join(r.fakeDir, "entire"), fakeEntire, 0o755)
		path = r.fakeDir + string(os.PathListSeparator) + path
	}
	r.env = []string{
		"PATH=" + path,
		"HOME=" + home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"ENTIRE_FAKE_DIR=" + r.fakeDir,
	}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *testRepo) opts() Options {
	return Options{RepoRoot: r.dir, Env: r.env}
}

// run runs git in dir and returns combined output and the error.
func (r *testRepo) runIn(dir string, args ...string) (string, error) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = r.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	execMu.RLock()
	err := cmd.Run()
	execMu.RUnlock()
	return out.String(), err
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	out, err := r.runIn(r.dir, args...)
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

// commit makes an empty commit in dir and returns the output and error.
func (r *testRepo) commitIn(dir, msg string) (string, error) {
	r.t.Helper()
	return r.runIn(dir, "commit", "-q", "--allow-empty", "-m", msg)
}

// calls returns the argv lines the fake entire recorded, and resets them.
func (r *testRepo) calls() []string {
	r.t.Helper()
	p := filepath.Join(r.fakeDir, "log")
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	_ = os.Remove(p)
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

func (r *testRepo) setExit(hook string, code string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.fakeDir, "exit-"+hook), []byte(code+"\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// setVerdict makes the fake entire write verdict to the shim's verdict
// file ("" stops it).
func (r *testRepo) setVerdict(hook, verdict string) {
	r.t.Helper()
	p := filepath.Join(r.fakeDir, "verdict-"+hook)
	if verdict == "" {
		_ = os.Remove(p)
		return
	}
	if err := os.WriteFile(p, []byte(verdict), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// fileState is a file's bytes and mode, for before/after comparisons.
type fileState struct {
	data string
	mode fs.FileMode
}

// snapshot records every file in dir (non-recursive), following nothing.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		if info.Mode().IsRegular() {
			data, _ = os.ReadFile(p)
		} else if info.Mode()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			data = []byte("-> " + l)
		}
		out[e.Name()] = fileState{string(data), info.Mode()}
	}
	return out
}

func writeHookFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	execMu.Lock()
	defer execMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
