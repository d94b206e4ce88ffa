package e2etest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

var metadataSubjectRe = regexp.MustCompile(`^(Checkpoint: [0-9a-f]{12}|Finalize transcript for Checkpoint: [0-9a-f]{12}|Initialize (metadata|sessions) branch)$`)

// LineReader hands out one line per Read, as a terminal does (huh's
// accessible prompts start a new scanner for every question).
type LineReader struct{ Lines []string }

// killEntireIn SIGKILLs the entire processes whose working directory is
// dir or below it.
func killEntireIn(dir string) {
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", p.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "entire" {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", p.Name(), "cwd"))
		if err != nil || cwd != dir && !strings.HasPrefix(cwd, dir+"/") {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// gitPath is a path in the work tree's git directory.
func GitPath(t *testing.T, dir, rel string) string {
	t.Helper()
	return filepath.Join(gittest.Git(t, dir, "rev-parse", "--path-format=absolute", "--git-dir"), filepath.FromSlash(rel))
}

// metadataLock is the lock file of the metadata branch.
func metadataLock(t *testing.T, dir string) string {
	return GitPath(t, dir, "refs/heads/entire/checkpoints/v1.lock")
}

func TrailerID(t *testing.T, dir, rev string) string {
	t.Helper()
	for _, l := range strings.Split(gittest.Git(t, dir, "log", "-1", "--format=%B", rev), "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			return v
		}
	}
	t.Fatalf("commit %s has no checkpoint trailer", rev)
	return ""
}

// committedSession plays two turns on a feature branch and commits them; it
// returns the repository and the checkpoint ID of the commit.
func CommittedSession(t *testing.T) (*SessionRepo, string) {
	t.Helper()
	r := NewSessionRepo(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n"})
	gittest.Git(t, r.Dir, "add", "hello.txt", "bye.txt")
	if out, err := GitCmd(t, r, "commit", "-q", "-m", "Add greeting and farewell").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	id := TrailerID(t, r.Dir, "HEAD")
	return r, id
}

// ShadowTranscript returns the transcript of the latest step on the
// session's shadow branch.
func ShadowTranscript(t *testing.T, r *SessionRepo) string {
	t.Helper()
	shadows := ShadowBranches(t, r.Dir)
	if len(shadows) != 1 {
		t.Fatalf("shadow branches %v", shadows)
	}
	return gittest.Git(t, r.Dir, "show", shadows[0]+":.entire/metadata/"+r.SessionID+"/full.jsonl")
}

// AnyStrings converts a decoded JSON array of strings.
func AnyStrings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Publish pushes the feature branch and the metadata branch of r to a new
// bare repository and returns its path.
func Publish(t *testing.T, r *SessionRepo) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, r.Dir, "init", "-q", "--bare", bare)
	gittest.Git(t, r.Dir, "push", "-q", "--no-verify", bare, "main", "feature", "entire/checkpoints/v1")
	return bare
}

// SecondClone makes a repository that has fetched only the given branches
// from remote (as another machine would), checked out on main.
func SecondClone(t *testing.T, remote string, branches ...string) string {
	t.Helper()
	dir := gittest.Init(t)
	gittest.Git(t, dir, "remote", "add", "origin", remote)
	for _, b := range append([]string{"main"}, branches...) {
		gittest.Git(t, dir, "fetch", "-q", "origin", "+refs/heads/"+b+":refs/remotes/origin/"+b)
	}
	gittest.Git(t, dir, "checkout", "-q", "-b", "main", "origin/main")
	return dir
}

func Snapshot(t *testing.T, dir string) TreeState {
	t.Helper()
	s := TreeState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		switch strings.SplitN(rel, "/", 2)[0] {
		case ".git", ".entire", ".claude", "build":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			s[rel] = "link:" + target
		case fi.IsDir():
			s[rel] = "dir"
		case fi.Mode()&0o111 != 0:
			b, _ := os.ReadFile(p)
			s[rel] = "exec:" + string(b)
		default:
			b, _ := os.ReadFile(p)
			s[rel] = "file:" + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// DiffStates describes how got differs from want ("" when equal).
func DiffStates(want, got TreeState) string {
	var out []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			out = append(out, "missing "+p)
		} else if g != w {
			out = append(out, fmt.Sprintf("differs %s: %.40q want %.40q", p, g, w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			out = append(out, "extra "+p)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TreeState is a work tree as a person sees it: every file, symlink and
// directory (outside .git, .entire, .claude and the ignored build/) with
// its kind and content.
type TreeState map[string]string

func WriteScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// AddMetadata adds files (paths relative to the root of the metadata
// branch) onto entire/checkpoints/v1 of dir as one new commit, creating the
// branch when it does not exist.
func AddMetadata(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	work := t.TempDir()
	for p, c := range files {
		gittest.WriteFile(t, work, p, c)
	}
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	git := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gittest.Env(t.TempDir()), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	parent, _ := exec.Command("git", "-C", dir, "rev-parse", "--verify", "--quiet", "refs/heads/entire/checkpoints/v1").Output()
	var parentArgs []string
	if p := strings.TrimSpace(string(parent)); p != "" {
		git(idx, "read-tree", p)
		parentArgs = []string{"-p", p}
	}
	git(idx, "--work-tree="+work, "add", "--ignore-removal", ".")
	tree := git(idx, "write-tree")
	c := git(nil, append(append([]string{"commit-tree", tree}, parentArgs...), "-m", "Checkpoint: test")...)
	git(nil, "update-ref", "refs/heads/entire/checkpoints/v1", c)
}

// SameTranscript reports a difference between two transcripts without
// printing megabytes.
func SameTranscript(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes, want %d; first difference at byte %d: %q vs %q", what, len(got), len(want), i,
		got[i:min(len(got), i+80)], want[i:min(len(want), i+80)])
}

func LongestLine(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, len(l))
	}
	return n
}

// WebSession plays a session of turns turns whose tool results add up to
// about mb megabytes of transcript, commits it, and returns the
// checkpoint ID.
func WebSession(t *testing.T, r *SessionRepo, turns, mb int) string {
	t.Helper()
	r.Hook("session-start", map[string]any{"source": "startup"})
	var log strings.Builder
	for i := 0; log.Len() < mb<<20/turns; i++ {
		fmt.Fprintf(&log, "[%06d] compiled pkg/module%03d in %d ms\n", i, i%997, i%300)
	}
	out := log.String()
	for n := 1; n <= turns; n++ {
		r.StartTurn(r.Dir, fmt.Sprintf("Build step %d and report", n))
		r.AppendTranscript(
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a-%d", n), "message": map[string]any{"id": fmt.Sprintf("m-%d", n), "role": "assistant",
				"usage":   map[string]any{"input_tokens": 1000 + n, "output_tokens": 200},
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", n), "name": "Bash", "input": map[string]any{"command": "make"}}}}},
			map[string]any{"type": "user", "uuid": fmt.Sprintf("u-%d", n), "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", n), "content": fmt.Sprintf("turn %d\n", n) + out}}}},
		)
		r.WriteFiles(map[string]string{fmt.Sprintf("step%02d.go", n): fmt.Sprintf("package steps\n\nconst Step%d = %d\n", n, n)})
		r.EndTurn(r.Dir, fmt.Sprintf("Step %d built.", n))
	}
	return r.CommitAll("Build the steps")
}

// WebClient is an HTTP client for the view (the token is in w.Base).
func WebClient(t *testing.T, w *WebServer) *http.Client {
	t.Helper()
	return &http.Client{Timeout: 30 * time.Second}
}

// FetchTime returns the body of path and the shortest of five times its
// whole HTML took to arrive.
func FetchTime(t *testing.T, c *http.Client, w *WebServer, path string) (string, time.Duration) {
	t.Helper()
	var best time.Duration
	var body []byte
	for i := 0; i < 5; i++ {
		start := time.Now()
		resp, err := c.Get(w.Base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		if i == 0 || d < best {
			best = d
		}
	}
	return string(body), best
}

// PeakRSS is the largest peak resident set of a process and its children
// (entire and the entire-web it runs; Linux; 0 elsewhere).
func PeakRSS(pid int) int64 {
	var peak int64
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				var kb int64
				fmt.Sscan(f[1], &kb)
				peak = kb << 10
			}
		}
	}
	// Each thread lists the children it forked.
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, c := range strings.Fields(string(b)) {
			if child, err := strconv.Atoi(c); err == nil {
				peak = max(peak, PeakRSS(child))
			}
		}
	}
	return peak
}

// WebServer is `entire web --no-open` running in a repository.
type WebServer struct {
	Cmd    *exec.Cmd
	URL    string // as printed, with the token
	Base   string // http://127.0.0.1:<port>/<token>: where pages are
	Origin string // http://127.0.0.1:<port>
}

// StartWeb starts the built binary's web server in r's repository and
// reads the URL it prints first.
func StartWeb(t *testing.T, r *SessionRepo) *WebServer {
	t.Helper()
	cmd := exec.Command(EntireBin(), "web", "--no-open")
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // entire-web follows it
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "http://127.0.0.1:") {
				lines <- sc.Text()
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case url := <-lines:
		base := strings.TrimSuffix(url, "/")
		return &WebServer{Cmd: cmd, URL: url, Base: base, Origin: base[:strings.LastIndex(base, "/")]}
	case <-time.After(20 * time.Second):
		t.Fatal("entire web printed no URL")
	}
	return nil
}

// stop sends Ctrl-C and expects a clean exit.
func (w *WebServer) Stop(t *testing.T) {
	t.Helper()
	w.Cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- w.Cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("entire web after Ctrl-C: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("entire web did not stop on Ctrl-C")
	}
}

// BigOutput is a 50 KB tool output with a findable line near its end.
func BigOutput() string {
	var b strings.Builder
	for i := 0; b.Len() < 50_000; i++ {
		fmt.Fprintf(&b, "row %05d: some build log output that goes on and on\n", i)
	}
	b.WriteString("FINAL-NEEDLE at the end\n")
	return b.String()
}

func AssertGitHooks(t *testing.T, dir string, wantInstalled bool) {
	t.Helper()
	for _, h := range githook.Names() {
		data, err := os.ReadFile(filepath.Join(dir, ".git", "hooks", h))
		has := err == nil && bytes.Contains(data, []byte(githook.Marker))
		if has != wantInstalled {
			t.Errorf("git hook %s installed = %v, want %v", h, has, wantInstalled)
		}
	}
}

func PointOfMessage(t *testing.T, pts []ListedPoint, msg string) ListedPoint {
	t.Helper()
	for _, p := range pts {
		if strings.Contains(strings.ToLower(p.Message), msg) {
			return p
		}
	}
	t.Fatalf("no point %q in %+v", msg, pts)
	return ListedPoint{}
}

const SubagentFinal = "I documented the project layout in docs/layout.md.\n\n" +
	"<entire:conclusion>\nstatus: success\nsummary: |\n  Documented the layout of the project.\nartifacts:\n  - docs/layout.md\n  - docs/gone.md\nmemory_refs:\n  - proj-layout\nconfidence: 0.9\n</entire:conclusion>"

// Announced is what a command run by the agent printed to announce the
// entities it touched (render references): a note that exists, a
// checkpoint that does not, and an undo point whose preview carries markup.
const Announced = `::entire-ref/v1::{"v":1,"type":"note","id":"build-cmd","intent":"referenced"}
::entire-ref/v1::{"v":1,"type":"checkpoint","id":"0123456789ab","intent":"referenced"}
::entire-ref/v1::{"v":1,"type":"undo_point","id":"u-1","intent":"created","preview":{"title":"<i>before</i> the rewind"}}`
