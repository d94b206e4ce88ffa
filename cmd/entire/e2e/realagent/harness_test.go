//go:build realagent

package realagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/cmd/entire/e2etest/realagent"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// liveRepo is a repository with entire enabled for one client, its model
// server and the client's environment.
type liveRepo struct {
	t   *testing.T
	c   client
	dir string
	srv *realagent.Server
	env *realagent.Env
}

// newLiveRepo enables entire for c in a new repository (one commit, then
// the enable commit) with extra enable flags.
func newLiveRepo(t *testing.T, c client, enableFlags ...string) *liveRepo {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	r := &liveRepo{t: t, c: c, dir: dir}
	r.srv = realagent.NewServer(t, nil)
	r.env = clientEnv(t, c, r.srv, dir)
	t.Cleanup(func() { e2etest.AwaitFinishers(t, dir) })
	r.entire(append([]string{"enable", "--agent", c.agentFlag()}, enableFlags...)...)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "enable entire")
	return r
}

// envProvider is a client that needs more in its environment (and
// entire's, which runs it).
type envProvider interface{ extraEnv() []string }

// clientEnv is the environment of client c, trusting dir.
func clientEnv(t *testing.T, c client, srv *realagent.Server, dir string) *realagent.Env {
	t.Helper()
	env := realagent.NewEnv(t, srv, e2etest.ProgramEnv(t), dir)
	if p, ok := c.(envProvider); ok {
		env.Vars = append(env.Vars, p.extraEnv()...)
	}
	return env
}

// entire runs the built binary as the user would in the repository, with
// the client's HOME; it fails the test on a non-zero exit.
func (r *liveRepo) entire(args ...string) (stdout, stderr string) {
	r.t.Helper()
	out, errOut, code := r.entireIn(r.dir, args...)
	if code != 0 {
		r.t.Fatalf("entire %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out, errOut
}

func (r *liveRepo) entireIn(dir string, args ...string) (string, string, int) {
	r.t.Helper()
	return e2etest.RunEntire(r.t, dir, append(r.env.Vars, "ENTIRE_TEST_TTY=0"), "", args...)
}

// git runs git with the installed hooks (entire on PATH) in the repository.
func (r *liveRepo) git(args ...string) string {
	r.t.Helper()
	return gitWithEnv(r.t, r.dir, r.env.Vars, args...)
}

func gitWithEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(env, "ENTIRE_TEST_TTY=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// liveRun is what one client run did.
type liveRun struct {
	sessionID string
	answer    string // the final result text
	stdout    string
	stderr    string
}

// prompt runs the client once, non-interactively, on a prompt that starts
// with the script's marker, in dir ("" for the repository root). It fails
// the test when the client exits non-zero or reports a failed hook.
func (r *liveRepo) prompt(script, text string) liveRun {
	r.t.Helper()
	return r.run(r.dir, script, text, r.c.promptArgs)
}

// resume is prompt in session sessionID.
func (r *liveRepo) resume(script, text, sessionID string) liveRun {
	r.t.Helper()
	return r.run(r.dir, script, text, func(p string) []string { return r.c.resumeArgs(p, sessionID) })
}

// latest is prompt in the latest session.
func (r *liveRepo) latest(script, text string) liveRun {
	r.t.Helper()
	return r.run(r.dir, script, text, r.c.latestArgs)
}

func (r *liveRepo) run(dir, script, text string, argsOf func(prompt string) []string) liveRun {
	r.t.Helper()
	p := "SCRIPT:" + script + " " + text
	res := realagent.Run(r.t, r.env, dir, r.c.binary(), argsOf(p)...)
	run := liveRun{stdout: res.Stdout, stderr: res.Stderr}
	if res.ExitCode != 0 {
		r.t.Fatalf("%s exit %d after %s\nstdout:\n%s\nstderr:\n%s", r.c.name(), res.ExitCode, res.Elapsed, tailString(res.Stdout), tailString(res.Stderr))
	}
	r.checkRun(&run)
	// A turn end may be finishing in the background (Claude Code writes
	// the turn's last line after calling Stop).
	e2etest.AwaitFinishers(r.t, dir)
	r.t.Logf("%s %q: %s, session %s", r.c.name(), p, res.Elapsed.Round(time.Millisecond), run.sessionID)
	return run
}

func tailString(s string) string {
	if len(s) > 6000 {
		return "…" + s[len(s)-6000:]
	}
	return s
}

// settingsComplaint is how the clients report a settings file they reject.
var settingsComplaint = regexp.MustCompile(`(?i)(invalid|error|failed)[^\n]*(settings|hooks? config)|(settings|hooks? config)[^\n]*(invalid|error|failed to (load|parse))`)

// checkRun reads a run's output: the session ID, the answer, and every
// hook's outcome as the client reports it; a hook that did not succeed, or
// a complaint about a settings file, fails the test.
func (r *liveRepo) checkRun(run *liveRun) {
	r.t.Helper()
	if m := settingsComplaint.FindString(run.stderr); m != "" {
		r.t.Errorf("%s complains about a settings file: %s", r.c.name(), m)
	}
	sc := bufio.NewScanner(strings.NewReader(run.stdout))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev streamEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if run.sessionID == "" && ev.SessionID != "" {
			run.sessionID = ev.SessionID
		}
		r.c.observe(r.t, ev, run)
	}
	r.c.afterRun(r.t, run)
}

// recordHookTimes adds the hook times the client kept to the log.
func (r *liveRepo) recordHookTimes() { r.c.recordHookTimes(r.env.Home, r.dir) }

// hookTimes collects the hook wall times the clients reported, by client
// and event, over the whole tier (test-only state).
var hookTimes = &hookTimeLog{ms: map[string][]int{}}

type hookTimeLog struct {
	mu sync.Mutex
	ms map[string][]int
}

func (h *hookTimeLog) add(client, event string, ms int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := client + " " + event
	h.ms[k] = append(h.ms[k], ms)
}

// mark returns how many times each key holds, for medianSince.
func (h *hookTimeLog) mark() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := make(map[string]int, len(h.ms))
	for k, v := range h.ms {
		m[k] = len(v)
	}
	return m
}

// medianSince returns the median of the times of key added after mark.
func (h *hookTimeLog) medianSince(mark map[string]int, key string) (int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := append([]int(nil), h.ms[key][mark[key]:]...)
	if len(v) == 0 {
		return 0, false
	}
	sort.Ints(v)
	return v[len(v)/2], true
}

// summary returns "<client> <event>: n=…, median …ms, max …ms" lines and
// the median of each key.
func (h *hookTimeLog) summary() (string, map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := make([]string, 0, len(h.ms))
	for k := range h.ms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	medians := map[string]int{}
	var b strings.Builder
	for _, k := range keys {
		v := append([]int(nil), h.ms[k]...)
		sort.Ints(v)
		medians[k] = v[len(v)/2]
		fmt.Fprintf(&b, "  %-28s n=%-3d median %4dms  max %4dms\n", k, len(v), medians[k], v[len(v)-1])
	}
	return b.String(), medians
}

// transcriptOf returns the path of a client's transcript of a session
// under HOME (the newest file when the client keeps several).
func (r *liveRepo) transcriptOf(sessionID string) string {
	r.t.Helper()
	m, _ := filepath.Glob(r.c.transcriptGlob(r.env.Home, sessionID))
	if len(m) == 0 || len(m) > 1 && !r.c.manyFiles() {
		r.t.Fatalf("transcript of %s: %v", sessionID, m)
	}
	if len(m) > 1 {
		r.t.Logf("session %s has %d chat files %v: the newest is its transcript", sessionID, len(m), m)
	}
	newest, newestTime := m[0], time.Time{}
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(newestTime) {
			newest, newestTime = p, fi.ModTime()
		}
	}
	return newest
}

// shadowTip returns the shadow branch of the repository's HEAD ("" when
// none).
func (r *liveRepo) shadowTip() string {
	r.t.Helper()
	out := gittest.Git(r.t, r.dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/entire/")
	for _, b := range strings.Fields(out) {
		if _, _, ok := checkpoint.ParseShadowBranch(b); ok {
			return b
		}
	}
	return ""
}
