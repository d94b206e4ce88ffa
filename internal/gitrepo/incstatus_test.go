package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/fswatch"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// logBuffer collects what a Repo logs, for tests to tell full statuses
// from incremental ones.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// take returns what was logged since the last call.
func (l *logBuffer) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	l.buf.Reset()
	return s
}

// incRepo is a repository whose status runs through a real watcher.
type incRepo struct {
	t    *testing.T
	dir  string
	r    *Repo
	logs *logBuffer
}

// newIncRepo makes a repository with a committed tree (a .gitignore, an
// executable, a symbolic link, nested directories, a submodule's gitlink),
// starts a watcher on it and returns it with its fast status set up as
// the hooks set it up.
func newIncRepo(t *testing.T) *incRepo {
	t.Helper()
	dir := gittest.Init(t)
	gittest.WriteFile(t, dir, ".gitignore", "*.log\nbuild/\n")
	for _, f := range []string{"a.txt", "src/b.go", "src/deep/c.go", "src/deep/d.go", "docs/e.md", "tool.sh"} {
		gittest.WriteFile(t, dir, f, "content of "+f+"\n")
	}
	if err := os.Chmod(filepath.Join(dir, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "-A")
	// A submodule's gitlink, its directory holding files of its own.
	gittest.Git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",sub")
	gittest.WriteFile(t, dir, "sub/inner.txt", "not ours\n")
	gittest.Git(t, dir, "commit", "-q", "-m", "base")

	state := fswatch.StateDir(filepath.Join(dir, ".git"))
	if err := fswatch.Prepare(state); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ready := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		_ = fswatch.Run(ctx, fswatch.Options{Root: dir, StateDir: state, Logf: func(msg string, _ ...any) {
			if msg == "watcher ready" {
				once.Do(func() { close(ready) })
			}
		}})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-ready:
	case <-done:
		t.Fatal("the watcher ended before it was ready")
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not become ready")
	}
	r := openTest(t, dir)
	logs := &logBuffer{}
	r.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r.FastStatus = &FastStatus{
		IndexFile: fswatch.IndexFile(state),
		Changes:   func(tok string) (string, []string, bool) { return fswatch.Changes(state, tok) },
		CacheFile: fswatch.StatusCacheFile(state),
	}
	return &incRepo{t: t, dir: dir, r: r, logs: logs}
}

// sh runs a shell command in the work tree.
func (ir *incRepo) sh(script string) {
	ir.t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = ir.dir
	cmd.Env = gittest.Env(filepath.Join(os.TempDir(), "gittest-home"))
	if out, err := cmd.CombinedOutput(); err != nil {
		ir.t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// want is git's own status, read without touching the index.
func (ir *incRepo) want() []string {
	ir.t.Helper()
	out := gittest.Git(ir.t, ir.dir, "--no-optional-locks", "status", "--porcelain=v1", "-z", "-uall", "--no-renames", "--ignore-submodules=all")
	entries, err := ParseStatus([]byte(out))
	if err != nil {
		ir.t.Fatal(err)
	}
	return entryStrings(dropNested(entries)) // as Status reports them
}

func entryStrings(entries []StatusEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = string([]byte{e.X, e.Y}) + " " + e.Path
	}
	sort.Strings(out)
	return out
}

// check compares the status with git's and reports whether it was
// incremental.
func (ir *incRepo) check(step string) (incremental bool) {
	ir.t.Helper()
	got, err := ir.r.Status(context.Background())
	if err != nil {
		ir.t.Fatalf("%s: status: %v", step, err)
	}
	logged := ir.logs.take()
	if strings.Contains(logged, "failed") {
		ir.t.Errorf("%s: %s", step, logged)
	}
	if g, w := entryStrings(got), ir.want(); strings.Join(g, "|") != strings.Join(w, "|") {
		ir.t.Fatalf("%s: status\n got %q\nwant %q\nlog: %s", step, g, w, logged)
	}
	return strings.Contains(logged, "msg=\"incremental status\"")
}

// TestIncrementalStatusMatchesGit: after each change to the work tree the
// status judged from the watcher's changes is git's own, and it is judged
// incrementally unless the change is one it must leave to git (HEAD moved,
// the index changed, a rule file changed, a nested repository).
func TestIncrementalStatusMatchesGit(t *testing.T) {
	t.Parallel()
	ir := newIncRepo(t)
	ir.check("first (full)")
	steps := []struct {
		name        string
		script      string
		incremental bool
	}{
		{"nothing changed", "true", true},
		{"edit a tracked file", "echo more >> src/b.go", true},
		{"new untracked file", "echo n > new.txt", true},
		{"ignored file", "echo l > x.log", true},
		{"file in an ignored directory", "mkdir -p build/out && echo o > build/out/bin", true},
		{"chmod a tracked file", "chmod +x a.txt", true},
		{"executable bit dropped", "chmod -x tool.sh", true},
		{"delete a tracked file", "rm docs/e.md", true},
		{"a file replaced by a link", "rm src/deep/d.go && ln -s ../b.go src/deep/d.go", true},
		{"a link retargeted", "rm link && ln -s src/b.go link", true},
		{"new directory tree", "mkdir -p n1/n2 && echo x > n1/n2/f && echo y > n1/g", true},
		{"remove a directory", "rm -rf n1", true},
		{"move a tracked directory", "mv src/deep src/moved", true},
		{"move it back", "mv src/moved src/deep", true},
		{"edit undone", "printf 'content of src/b.go\\n' > src/b.go", true},
		{"a file inside the submodule", "echo changed > sub/inner.txt && echo new > sub/new.txt", true},
		{"a directory replaced by a link", "mv docs docs.away && ln -s docs.away docs", true},
		{"the link replaced by the directory", "rm docs && mv docs.away docs", true},
		{"rename an untracked file", "mv new.txt renamed.txt", true},
		{"a plain git status rewrites the index", "git status >/dev/null", true},
		{"edit the .gitignore", "echo 'renamed.txt' >> .gitignore", false},
		{"after the rule change", "echo z > z.txt", true},
		{"stage a file", "git add z.txt", false},
		{"commit", "git commit -q -m next", false},
		{"after the commit", "echo w >> a.txt", true},
		{"a nested repository", "mkdir nested && git init -q nested && echo f > nested/f", false},
		{"remove it", "rm -rf nested", true},
	}
	for _, s := range steps {
		ir.sh(s.script)
		if inc := ir.check(s.name); inc != s.incremental {
			t.Errorf("%s: incremental = %v, want %v", s.name, inc, s.incremental)
		}
	}
}

// TestIncrementalStatusRandomChanges: random edits, creations, removals,
// renames and mode changes, with the status compared with git's after
// each batch.
func TestIncrementalStatusRandomChanges(t *testing.T) {
	t.Parallel()
	ir := newIncRepo(t)
	ir.check("first")
	rng := rand.New(rand.NewPCG(7, 16))
	names := []string{"a.txt", "src/b.go", "src/deep/c.go", "src/deep/d.go", "docs/e.md", "tool.sh", "link",
		"new1.txt", "src/new2.go", "t/u/v.txt", "x.log", "build/y", "src/deep", "docs", "t"}
	pick := func() string { return names[rng.IntN(len(names))] }
	incremental := 0
	const batches = 60
	for b := 0; b < batches; b++ {
		var script []string
		for k := 0; k <= rng.IntN(3); k++ {
			p := pick()
			switch rng.IntN(6) {
			case 0, 1:
				script = append(script, fmt.Sprintf("mkdir -p $(dirname %s) 2>/dev/null; [ -d %s ] || echo %d >> %s", p, p, rng.IntN(3), p))
			case 2:
				script = append(script, "rm -rf "+p)
			case 3:
				script = append(script, fmt.Sprintf("[ -f %s ] && chmod %s %s", p, []string{"+x", "-x"}[rng.IntN(2)], p))
			case 4:
				q := pick()
				script = append(script, fmt.Sprintf("[ -e %s ] && [ ! -e %s ] && mkdir -p $(dirname %s) && mv %s %s", p, q, q, p, q))
			case 5:
				script = append(script, "git checkout -q -- "+p+" 2>/dev/null")
			}
		}
		ir.sh(strings.Join(script, "; ") + "; true")
		if ir.check(fmt.Sprintf("batch %d: %s", b, strings.Join(script, "; "))) {
			incremental++
		}
	}
	if incremental < batches*3/4 {
		t.Errorf("only %d of %d statuses were incremental", incremental, batches)
	}
}

// A staged change at the full status leaves no cache: the next status is
// a full one, and right.
func TestIncrementalStatusNotAfterStagedChanges(t *testing.T) {
	t.Parallel()
	ir := newIncRepo(t)
	ir.sh("echo s >> a.txt && git add a.txt")
	ir.check("staged")
	ir.sh("echo t >> src/b.go")
	if ir.check("after a staged change") {
		t.Error("an incremental status followed a full one with a staged change")
	}
}

func TestIndexTreeRoot(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			t.Parallel()
			dir := gittest.Init(t)
			gittest.WriteFile(t, dir, "a.txt", "a\n")
			gittest.Git(t, dir, "add", "-A")
			// A name over the 12-bit length field, staged without a file.
			long := strings.Repeat(strings.Repeat("L", 200)+"/", 25) + "f"
			blob := gittest.Git(t, dir, "rev-parse", ":a.txt")
			gittest.Git(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
			if version == "3" {
				gittest.Git(t, dir, "update-index", "--skip-worktree", "a.txt") // an extended flag
			}
			gittest.Git(t, dir, "update-index", "--index-version", version)
			gittest.Git(t, dir, "commit", "-q", "-m", "c")
			root, valid, err := indexTreeRoot(filepath.Join(dir, ".git", "index"))
			if err != nil || !valid {
				t.Fatalf("root %v valid %v err %v", root, valid, err)
			}
			if want := gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"); root.String() != want {
				t.Fatalf("root %s, want %s", root, want)
			}
			gittest.WriteFile(t, dir, "b.txt", "b\n")
			gittest.Git(t, dir, "add", "b.txt")
			if _, valid, err := indexTreeRoot(filepath.Join(dir, ".git", "index")); err != nil || valid {
				t.Fatalf("after a staged change: valid %v err %v", valid, err)
			}
		})
	}
}

func FuzzIndexTreeRoot(f *testing.F) {
	dir := gittest.Init(f)
	gittest.WriteFile(f, dir, "a.txt", "a\n")
	gittest.Git(f, dir, "add", "-A")
	gittest.Git(f, dir, "commit", "-q", "-m", "c")
	idx, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(idx)
	f.Add([]byte("DIRC\x00\x00\x00\x04\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "index")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, _ = indexTreeRoot(p) // no panic, no hang
	})
}
