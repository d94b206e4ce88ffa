//go:build unix

// Command scalebench measures the hooks of `entire` on the largest inputs a
// hook is asked to bear: a turn whose transcript gains one 60 MB tool result
// (with the PostToolUse hook carrying the same 60 MB as Claude Code sends
// it), a session whose transcript grows from nothing to 75 MB in one turn,
// and the commit after each of them; and a team's use (--scenarios
// history,team): a metadata branch of 20,000 checkpoints, and eight clones
// pushing to one remote at once. It drives the built binary and git as
// Claude Code and a user do: a real repository, `entire enable`, hook
// payloads on stdin, transcript lines in the agent's own file, and
// `git commit` through the installed git hooks.
//
// Each hook's wall time, user+system CPU and peak RSS (the child's rusage
// from wait4) are printed as a table, judged against the bounds (1 s, 150
// MB by default), and optionally written as JSON. The exit status is 1 when
// a hook exceeds a bound. It builds on Unix only (rusage); the peak RSS
// is in the kilobytes Linux reports.
//
// Run it from the module root:
//
//	go run ./internal/scalebench                 # builds ./cmd/entire
//	go run ./internal/scalebench --bin ~/go/bin/entire --json out.json
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// shimLogEnv names the file the timing shim appends its measurements to;
// set, the program runs as the shim (see runShim).
const shimLogEnv = "SCALEBENCH_SHIM_LOG"

// shimTargetEnv names the binary the shim runs.
const shimTargetEnv = "SCALEBENCH_SHIM_TARGET"

// shimProfileEnv names a directory for CPU profiles of the shim's children.
const shimProfileEnv = "SCALEBENCH_SHIM_PROFILES"

// shimCommandEnv, set, names a program the shim runs (found on PATH)
// instead of the target, once: the variable is not passed on, so that
// the program's own `entire` calls reach the target.
const shimCommandEnv = "SCALEBENCH_SHIM_COMMAND"

// errOverBound is run's answer when a hook exceeded a bound.
var errOverBound = errors.New("a hook exceeded a bound")

// options are the command line's settings.
type options struct {
	bin          string
	jsonOut      string
	workdir      string
	keep         bool
	scenarios    string
	toolMB       int
	transcriptMB int
	wallLimit    time.Duration
	rssLimitMB   int
	profiles     string
	savePayloads bool
	// historyCheckpoints is the size of the history scenario's metadata
	// branch.
	historyCheckpoints int
	// teamClones and teamRounds size the team scenario.
	teamClones, teamRounds int
}

func main() {
	if os.Getenv(shimLogEnv) != "" {
		os.Exit(runShim(os.Args[1:]))
	}
	var o options
	flag.StringVar(&o.bin, "bin", "", "entire binary to measure (default: go build ./cmd/entire into the work directory)")
	flag.StringVar(&o.jsonOut, "json", "", "also write the measurements to this JSON file")
	flag.StringVar(&o.workdir, "workdir", "", "scratch directory (default: a new temporary directory, removed unless --keep)")
	flag.BoolVar(&o.keep, "keep", false, "keep the scratch directory")
	flag.StringVar(&o.scenarios, "scenarios", "tool60,long75", "comma-separated scenarios: tool60 (one 60 MB tool result), long75 (a 75 MB turn), history (a metadata branch of --history checkpoints), team (--team-clones clones pushing at once)")
	flag.IntVar(&o.toolMB, "tool-mb", 60, "size of the tool result in tool60, MB")
	flag.IntVar(&o.transcriptMB, "transcript-mb", 75, "transcript size reached in long75's one turn, MB")
	flag.DurationVar(&o.wallLimit, "wall-limit", time.Second, "wall-time bound of one hook")
	flag.IntVar(&o.rssLimitMB, "rss-limit-mb", 150, "peak-RSS bound of one hook, MB")
	flag.StringVar(&o.profiles, "cpuprofile-dir", "", "write a CPU profile of every entire process into this directory (ENTIRE_CPUPROFILE)")
	flag.IntVar(&o.historyCheckpoints, "history", 20000, "checkpoints on the metadata branch of the history scenario")
	flag.IntVar(&o.teamClones, "team-clones", 8, "clones of the team scenario (half over file://, half over git daemon)")
	flag.IntVar(&o.teamRounds, "team-rounds", 3, "rounds of the team scenario: a turn, a commit and a push in every clone, the pushes at once")
	flag.BoolVar(&o.savePayloads, "save-payloads", false, "keep each hook's stdin as <workdir>/<scenario>/payload-<n>-<verb>.json, to replay it under a profiler")
	flag.Parse()
	if err := run(o); errors.Is(err, errOverBound) {
		os.Exit(1)
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(2)
	}
}

// run sets up the scratch directory and the binary, plays the scenarios
// and reports.
func run(o options) (err error) {
	work := o.workdir
	if work == "" {
		if work, err = os.MkdirTemp("", "scalebench-"); err != nil {
			return fmt.Errorf("scratch directory: %w", err)
		}
		if !o.keep {
			defer os.RemoveAll(work)
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("scratch directory: %w", err)
	}
	if work, err = filepath.Abs(work); err != nil {
		return fmt.Errorf("scratch directory: %w", err)
	}
	if o.profiles != "" {
		if o.profiles, err = filepath.Abs(o.profiles); err != nil {
			return fmt.Errorf("profile directory: %w", err)
		}
		if err := os.MkdirAll(o.profiles, 0o755); err != nil {
			return fmt.Errorf("profile directory: %w", err)
		}
	}
	bin, err := binary(o.bin, work)
	if err != nil {
		return err
	}
	shimDir := filepath.Join(work, "shim")
	if err := installShim(shimDir); err != nil {
		return err
	}
	b := &bench{opts: o, bin: bin, work: work, shimDir: shimDir}
	for _, name := range strings.Split(o.scenarios, ",") {
		name = strings.TrimSpace(name)
		var play func(*scenario) error
		switch name {
		case "tool60":
			play = b.toolResult
		case "long75":
			play = b.longTurn
		case "history":
			play = b.history
		case "team":
			play = b.team
		case "":
			continue
		default:
			return fmt.Errorf("unknown scenario %q (tool60, long75, history, team)", name)
		}
		s, err := b.newScenario(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "scalebench: %s in %s\n", name, s.repo)
		if err := play(s); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.results = append(b.results, s.results...)
	}
	return b.report()
}

// binary returns the entire binary to measure: path when given, else one
// built from the module around the working directory.
func binary(path, work string) (string, error) {
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", fmt.Errorf("binary %s: %w", path, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("binary: %w", err)
		}
		return abs, nil
	}
	out := filepath.Join(work, "bin", "entire")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/entire")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/entire (run from the module root, or pass --bin): %w", err)
	}
	return out, nil
}

// installShim makes shimDir/entire run this program as the timing shim, so
// that the git hooks' `entire` calls are measured too.
func installShim(shimDir string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program: %w", err)
	}
	if err := os.MkdirAll(shimDir, 0o755); err != nil {
		return fmt.Errorf("shim: %w", err)
	}
	if err := os.Symlink(self, filepath.Join(shimDir, "entire")); err != nil {
		return fmt.Errorf("shim: %w", err)
	}
	return nil
}

// shimRecord is one measured `entire` call made by git's hooks.
type shimRecord struct {
	Args    []string `json:"args"`
	WallMS  float64  `json:"wall_ms"`
	UserMS  float64  `json:"user_ms"`
	SysMS   float64  `json:"sys_ms"`
	MaxRSSK int64    `json:"max_rss_kb"`
	Code    int      `json:"code"`
}

// runShim runs the binary named by shimTargetEnv with args, measures it and
// appends the measurement to the log; it exits with the child's status.
func runShim(args []string) int {
	cmd := exec.Command(os.Getenv(shimTargetEnv), args...)
	if name := os.Getenv(shimCommandEnv); name != "" {
		cmd = exec.Command(name, args...)
		os.Unsetenv(shimCommandEnv)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if dir := os.Getenv(shimProfileEnv); dir != "" {
		cmd.Env = append(os.Environ(), "ENTIRE_CPUPROFILE="+filepath.Join(dir, strings.Join(args[min(1, len(args)):min(3, len(args))], "-")+"-%p.pprof"))
	}
	m, err := measure(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench shim:", err)
		return 1
	}
	rec := shimRecord{Args: args, WallMS: ms(m.wall), UserMS: ms(m.user), SysMS: ms(m.sys), MaxRSSK: m.maxRSSK, Code: m.code}
	line, _ := json.Marshal(rec)
	if f, err := os.OpenFile(os.Getenv(shimLogEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.Write(append(line, '\n'))
		f.Close()
	}
	return m.code
}

// measurement is what one finished process cost.
type measurement struct {
	wall, user, sys time.Duration
	maxRSSK         int64
	code            int
}

// measure runs cmd to its end and returns its wall time and rusage.
func measure(cmd *exec.Cmd) (measurement, error) {
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return measurement{}, fmt.Errorf("run %s: %w", cmd.Path, err)
	}
	m := measurement{wall: wall, code: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.user = time.Duration(ru.Utime.Nano())
		m.sys = time.Duration(ru.Stime.Nano())
		m.maxRSSK = ru.Maxrss // kilobytes on Linux (bytes on macOS)
	}
	return m, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// result is one measured hook of a scenario.
type result struct {
	Scenario string  `json:"scenario"`
	Hook     string  `json:"hook"`
	Input    string  `json:"input"`
	WallMS   float64 `json:"wall_ms"`
	CPUMS    float64 `json:"cpu_ms"`
	MaxRSSMB float64 `json:"max_rss_mb"`
	Code     int     `json:"exit_code"`
	Pass     bool    `json:"pass"`
}

// bench holds what every scenario shares.
type bench struct {
	opts    options
	bin     string
	work    string
	shimDir string
	results []result
	// sessions counts the sessions made, for their IDs.
	sessions int
}

// scenario is one repository and one Claude Code session in it.
type scenario struct {
	b          *bench
	name       string
	repo       string
	home       string
	env        []string
	sessionID  string
	transcript string
	shimLog    string
	results    []result
	turn       int
	// quiet: the agent's hooks run unmeasured (the team scenario measures
	// its pushes only).
	quiet bool
	// branch and transport are a team clone's branch and how it reaches
	// the remote.
	branch, transport string
}

// newScenario makes a repository with a few files and a first commit, runs
// `entire enable --agent claude-code` in it and commits what enable wrote.
func (b *bench) newScenario(name string) (*scenario, error) {
	s, err := b.scenarioAt(name, filepath.Join(b.work, name))
	if err != nil {
		return nil, err
	}
	if _, err := s.git("init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	for i := range 40 {
		if err := s.writeFile(fmt.Sprintf("src/file%02d.go", i), sourceText(i, 4<<10)); err != nil {
			return nil, err
		}
	}
	if err := s.writeFile("README.md", "# bench\n"); err != nil {
		return nil, err
	}
	if err := s.commitPlain("initial"); err != nil {
		return nil, err
	}
	if err := s.enable(); err != nil {
		return nil, err
	}
	if err := s.commitPlain("enable entire"); err != nil {
		return nil, err
	}
	os.Remove(s.shimLog)
	return s, nil
}

// enable runs `entire enable` in the repository, unmeasured, once, as a
// user does.
func (s *scenario) enable() error {
	cmd := exec.Command(s.b.bin, "enable", "--agent", "claude-code", "--strategy", "manual-commit", "--telemetry=false")
	cmd.Dir, cmd.Env = s.repo, s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("entire enable: %w\n%s", err, out)
	}
	return nil
}

// scenarioAt prepares the directories and environment of a scenario whose
// repository is to be root/repo, with a home of its own and a new session.
func (b *bench) scenarioAt(name, root string) (*scenario, error) {
	b.sessions++
	s := &scenario{b: b, name: name, repo: filepath.Join(root, "repo"), home: filepath.Join(root, "home"),
		sessionID: fmt.Sprintf("5ca1ebe0-0000-4000-8000-%012d", b.sessions), shimLog: filepath.Join(root, "shim.jsonl")}
	for _, d := range []string{s.repo, s.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", name, err)
		}
	}
	s.env = append(os.Environ(),
		"HOME="+s.home,
		"XDG_CONFIG_HOME="+filepath.Join(s.home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com",
		"PATH="+b.shimDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		shimLogEnv+"="+s.shimLog,
		shimTargetEnv+"="+b.bin,
	)
	if b.opts.profiles != "" {
		s.env = append(s.env, shimProfileEnv+"="+b.opts.profiles)
	}
	// Claude Code keeps a project's transcripts in
	// ~/.claude/projects/<the project path, every other character a dash>.
	s.transcript = filepath.Join(s.home, ".claude", "projects", sanitize(s.repo), s.sessionID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(s.transcript), 0o755); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	return s, nil
}

// sanitize is Claude Code's project directory name for a path.
func sanitize(p string) string {
	b := []byte(p)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// git runs git in the repository (with the installed hooks, through the
// shim) and returns its output.
func (s *scenario) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = s.repo, s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// commitPlain commits everything without measuring.
func (s *scenario) commitPlain(msg string) error {
	if _, err := s.git("add", "-A"); err != nil {
		return err
	}
	_, err := s.git("commit", "-q", "-m", msg)
	return err
}

func (s *scenario) writeFile(rel, content string) error {
	p := filepath.Join(s.repo, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// hook runs `entire hooks claude-code <verb>` with payload on stdin (the
// session's fields filled in, as Claude Code sends them) and records its
// cost under input.
func (s *scenario) hook(verb, event, input string, payload map[string]any) error {
	full := map[string]any{
		"session_id":      s.sessionID,
		"transcript_path": s.transcript,
		"cwd":             s.repo,
		"hook_event_name": event,
	}
	if verb != "session-start" {
		full["permission_mode"] = "bypassPermissions"
		full["prompt_id"] = fmt.Sprintf("7b0e5a1c-0000-4000-8000-%012d", s.turn)
	}
	for k, v := range payload {
		full[k] = v
	}
	data, err := json.Marshal(full)
	if err != nil {
		return fmt.Errorf("payload of %s: %w", verb, err)
	}
	return s.hookRaw(verb, input, data)
}

// hookRaw runs a hook with stdin as is. It runs through the shim: Linux
// counts the peak RSS of the process that forked a child into the child's
// rusage, and this program holds the payloads.
func (s *scenario) hookRaw(verb, input string, stdin []byte) error {
	cmd := exec.Command(filepath.Join(s.b.shimDir, "entire"), "hooks", "claude-code", verb)
	cmd.Dir = s.repo
	cmd.Env = s.env
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	os.Remove(s.shimLog)
	if s.b.opts.savePayloads {
		name := fmt.Sprintf("payload-%02d-%s.json", len(s.results), verb)
		if err := os.WriteFile(filepath.Join(filepath.Dir(s.repo), name), stdin, 0o644); err != nil {
			return fmt.Errorf("save payload: %w", err)
		}
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("hook %s: %w: %s", verb, err, out.String())
	}
	recs, err := s.shimRecords()
	if err != nil || len(recs) != 1 {
		return fmt.Errorf("hook %s: %d measurements: %v", verb, len(recs), err)
	}
	if !s.quiet {
		s.record("claude-code "+verb, input, recs[0].measurement())
	}
	return nil
}

// shimRecords reads what the shim measured since the log was last removed.
func (s *scenario) shimRecords() ([]shimRecord, error) {
	data, err := os.ReadFile(s.shimLog)
	if err != nil {
		return nil, fmt.Errorf("shim log: %w", err)
	}
	var recs []shimRecord
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var rec shimRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("shim log: %w", err)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// measurement converts a shim record back.
func (r shimRecord) measurement() measurement {
	d := func(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
	return measurement{wall: d(r.WallMS), user: d(r.UserMS), sys: d(r.SysMS), maxRSSK: r.MaxRSSK, code: r.Code}
}

// record adds one measurement to the scenario's results.
func (s *scenario) record(hook, input string, m measurement) {
	o := s.b.opts
	r := result{Scenario: s.name, Hook: hook, Input: input, WallMS: ms(m.wall), CPUMS: ms(m.user + m.sys),
		MaxRSSMB: float64(m.maxRSSK) / 1024, Code: m.code}
	limit := o.wallLimit
	if d, ok := stepBounds[hook]; ok {
		limit = d
	}
	r.Pass = m.code == 0 && m.wall <= limit && r.MaxRSSMB <= float64(o.rssLimitMB)
	s.results = append(s.results, r)
	fmt.Fprintf(os.Stderr, "  %-32s %8.0f ms %8.0f ms cpu %7.1f MB\n", hook, r.WallMS, r.CPUMS, r.MaxRSSMB)
}

// commit stages the work tree and runs `git commit` through the installed
// hooks, recording every `entire` call the hooks make.
func (s *scenario) commit(msg, input string) error {
	if _, err := s.git("add", "-A"); err != nil {
		return err
	}
	os.Remove(s.shimLog)
	cmd := exec.Command("git", "commit", "-q", "-m", msg)
	cmd.Dir, cmd.Env = s.repo, s.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	m, err := measure(cmd)
	if err != nil {
		return err
	}
	if m.code != 0 {
		return fmt.Errorf("git commit exit %d: %s", m.code, out.String())
	}
	recs, err := s.shimRecords()
	if err != nil {
		return fmt.Errorf("git commit ran no entire hook: %w", err)
	}
	for _, rec := range recs {
		name := strings.TrimPrefix(strings.Join(rec.Args, " "), "hooks ")
		name = strings.TrimSuffix(name, " .git/COMMIT_EDITMSG message")
		name = strings.TrimSuffix(name, " .git/COMMIT_EDITMSG")
		s.record(name, input, rec.measurement())
	}
	trailers, _ := s.git("log", "-1", "--format=%(trailers:key=Entire-Checkpoint,valueonly)")
	if strings.TrimSpace(trailers) == "" {
		return errors.New("the commit has no Entire-Checkpoint trailer")
	}
	return nil
}

// transcriptWriter appends lines to the session's transcript the way
// Claude Code does: one JSON object a line, with the common envelope.
type transcriptWriter struct {
	s      *scenario
	f      *os.File
	parent string
	n      int
}

func (s *scenario) openTranscript() (*transcriptWriter, error) {
	f, err := os.OpenFile(s.transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	return &transcriptWriter{s: s, f: f}, nil
}

// line writes one entry: typ with message, plus extra top-level fields.
func (w *transcriptWriter) line(typ string, message map[string]any, extra map[string]any) error {
	w.n++
	uuid := fmt.Sprintf("0b5e55ed-%04d-4000-8000-%012d", w.s.turn, w.n)
	e := map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": w.s.repo,
		"sessionId": w.s.sessionID, "version": "2.1.197", "gitBranch": "main", "type": typ,
		"message": message, "uuid": uuid, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
	}
	if w.parent != "" {
		e["parentUuid"] = w.parent
	}
	for k, v := range extra {
		e[k] = v
	}
	w.parent = uuid
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("transcript line: %w", err)
	}
	if _, err := w.f.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	return nil
}

func (w *transcriptWriter) close() error { return w.f.Close() }

func (w *transcriptWriter) size() int64 {
	st, err := w.f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

// prompt writes the user's prompt line.
func (w *transcriptWriter) prompt(text string) error {
	return w.line("user", map[string]any{"role": "user", "content": text}, nil)
}

// toolUse writes an assistant line calling a tool, with its usage.
func (w *transcriptWriter) toolUse(id, name string, input map[string]any) error {
	return w.line("assistant", map[string]any{
		"id": "msg_" + id, "type": "message", "role": "assistant", "model": "claude-opus-4-8",
		"content":     []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 12, "cache_creation_input_tokens": 800, "cache_read_input_tokens": 24000, "output_tokens": 180, "service_tier": "standard"},
	}, map[string]any{"requestId": "req_" + id})
}

// toolResult writes the user line answering a tool call, with the
// toolUseResult Claude Code adds.
func (w *transcriptWriter) toolResult(id, content string, toolUseResult any) error {
	return w.line("user", map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}},
	}, map[string]any{"toolUseResult": toolUseResult, "sourceToolUseID": id})
}

// answer writes the turn's final assistant text.
func (w *transcriptWriter) answer(text string) error {
	return w.line("assistant", map[string]any{
		"id": fmt.Sprintf("msg_answer_%d", w.s.turn), "type": "message", "role": "assistant", "model": "claude-opus-4-8",
		"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 30000, "output_tokens": 40, "service_tier": "standard"},
	}, map[string]any{"requestId": fmt.Sprintf("req_answer_%d", w.s.turn)})
}

// startSession runs SessionStart and the first UserPromptSubmit, and writes
// the prompt line.
func (s *scenario) startTurn(w *transcriptWriter, prompt string) error {
	s.turn++
	if s.turn == 1 {
		if err := s.hook("session-start", "SessionStart", "empty transcript", map[string]any{"source": "startup"}); err != nil {
			return err
		}
	}
	if err := s.hook("user-prompt-submit", "UserPromptSubmit", "", map[string]any{"prompt": prompt}); err != nil {
		return err
	}
	return w.prompt(prompt)
}

// endTurn writes the final answer and runs Stop with it as
// last_assistant_message, as Claude Code 2.1 does.
func (s *scenario) endTurn(w *transcriptWriter, answer, input string) error {
	if err := w.answer(answer); err != nil {
		return err
	}
	return s.hook("stop", "Stop", input, map[string]any{"stop_hook_active": false, "last_assistant_message": answer,
		"background_tasks": []any{}, "session_crons": []any{}})
}

// toolResult plays tool60: one turn in which a Bash command prints
// toolMB megabytes; the transcript gains the result, PostToolUse carries it
// in tool_response, then the agent writes a file, Stop runs, and the user
// commits.
func (b *bench) toolResult(s *scenario) error {
	w, err := s.openTranscript()
	if err != nil {
		return err
	}
	defer w.close()
	if err := s.startTurn(w, "dump the build log and summarize it"); err != nil {
		return err
	}
	size := b.opts.toolMB << 20
	output := logText(size)
	input := map[string]any{"command": "make build 2>&1", "description": "Build and print the full log"}
	const id = "toolu_01BenchBash60MB"
	if err := w.toolUse(id, "Bash", input); err != nil {
		return err
	}
	// The transcript keeps the output once, in the tool_result; the
	// toolUseResult beside it is kept small so that the line is the
	// stated size.
	if err := w.toolResult(id, output, map[string]any{"stdout": "(in the tool result)", "stderr": "", "interrupted": false, "isImage": false}); err != nil {
		return err
	}
	label := fmt.Sprintf("%d MB tool_response", b.opts.toolMB)
	if err := s.hook("post-tool", "PostToolUse", label, map[string]any{
		"tool_name": "Bash", "tool_input": input, "tool_use_id": id, "duration_ms": 5400,
		"tool_response": map[string]any{"stdout": output, "stderr": "", "interrupted": false, "isImage": false},
	}); err != nil {
		return err
	}
	output = ""
	if err := s.writeTool(w, "BUILD-SUMMARY.md", "# Build\n\nThe build passed.\n"); err != nil {
		return err
	}
	tsize := fmt.Sprintf("%.0f MB transcript", float64(w.size())/(1<<20))
	if err := s.endTurn(w, "The build passed; the summary is in BUILD-SUMMARY.md.", tsize); err != nil {
		return err
	}
	return s.commit("Add the build summary", tsize)
}

// writeTool writes a file as the agent's Write tool does, with its
// transcript lines and PostToolUse hook.
func (s *scenario) writeTool(w *transcriptWriter, rel, content string) error {
	id := fmt.Sprintf("toolu_01BenchWrite%04d", w.n)
	abs := filepath.Join(s.repo, rel)
	input := map[string]any{"file_path": abs, "content": content}
	if err := w.toolUse(id, "Write", input); err != nil {
		return err
	}
	if err := s.writeFile(rel, content); err != nil {
		return err
	}
	resp := map[string]any{"type": "create", "filePath": abs, "content": content, "structuredPatch": []any{}, "originalFile": nil, "userModified": false}
	if err := w.toolResult(id, "File created successfully at: "+abs, resp); err != nil {
		return err
	}
	tsize := fmt.Sprintf("%.0f MB transcript", float64(w.size())/(1<<20))
	return s.hook("post-tool", "PostToolUse", tsize, map[string]any{"tool_name": "Write", "tool_input": input, "tool_use_id": id, "duration_ms": 12,
		"tool_response": resp})
}

// longTurn plays long75: one turn in which the agent reads source files,
// runs commands and writes a few files until the transcript holds
// transcriptMB megabytes, then Stop and the user's commit.
func (b *bench) longTurn(s *scenario) error {
	w, err := s.openTranscript()
	if err != nil {
		return err
	}
	defer w.close()
	if err := s.startTurn(w, "refactor the whole source tree"); err != nil {
		return err
	}
	target := int64(b.opts.transcriptMB) << 20
	writes := []int64{target / 4, target / 2, target * 3 / 4}
	for i := 0; w.size() < target; i++ {
		if len(writes) > 0 && w.size() >= writes[0] {
			writes = writes[1:]
			rel := fmt.Sprintf("src/new%02d.go", len(writes))
			if err := s.writeTool(w, rel, sourceText(100+i, 3<<10)); err != nil {
				return err
			}
			continue
		}
		id := fmt.Sprintf("toolu_01BenchStep%06d", i)
		if i%3 == 2 {
			out := logText(8<<10 + i%5*4<<10)
			in := map[string]any{"command": fmt.Sprintf("go test ./pkg%d/...", i%17), "description": "Run the tests"}
			if err := w.toolUse(id, "Bash", in); err != nil {
				return err
			}
			if err := w.toolResult(id, out, map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}); err != nil {
				return err
			}
			continue
		}
		rel := fmt.Sprintf("src/file%02d.go", i%40)
		text := sourceText(i, 12<<10)
		in := map[string]any{"file_path": filepath.Join(s.repo, rel)}
		if err := w.toolUse(id, "Read", in); err != nil {
			return err
		}
		res := map[string]any{"type": "text", "file": map[string]any{"filePath": filepath.Join(s.repo, rel), "content": text,
			"numLines": strings.Count(text, "\n"), "startLine": 1, "totalLines": strings.Count(text, "\n")}}
		if err := w.toolResult(id, text, res); err != nil {
			return err
		}
	}
	tsize := fmt.Sprintf("%.0f MB transcript", float64(w.size())/(1<<20))
	if err := s.endTurn(w, "Refactored the source tree; three new files.", tsize); err != nil {
		return err
	}
	return s.commit("Refactor the source tree", tsize)
}

// rng is a small deterministic generator (xorshift), so that every run
// writes the same bytes.
type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*r = rng(x)
	return x
}

var words = strings.Fields("func return if err nil ctx value index buffer reader writer config session checkpoint " +
	"commit branch tree blob hash path file line count total state phase turn step result error string int byte")

// sourceText returns about n bytes of Go-like source, different for every
// seed.
func sourceText(seed, n int) string {
	r := rng(uint64(seed)*2654435761 + 1)
	var b strings.Builder
	b.Grow(n + 128)
	fmt.Fprintf(&b, "package pkg%d\n\n", seed%17)
	for b.Len() < n {
		w1, w2, w3 := words[r.next()%uint64(len(words))], words[r.next()%uint64(len(words))], words[r.next()%uint64(len(words))]
		switch r.next() % 4 {
		case 0:
			fmt.Fprintf(&b, "func %s%s(%s string) error {\n", w1, strings.ToUpper(w2[:1])+w2[1:], w3)
		case 1:
			fmt.Fprintf(&b, "\t%s := %s.%s(%d)\n", w1, w2, w3, r.next()%1000)
		case 2:
			fmt.Fprintf(&b, "\tif %s != nil {\n\t\treturn fmt.Errorf(\"%s %s: %%w\", %s)\n\t}\n", w1, w2, w3, w1)
		default:
			fmt.Fprintf(&b, "}\n\n// %s %s the %s.\n", w1, w2, w3)
		}
	}
	return b.String()
}

// logText returns n bytes of a build log: compiler and test lines with
// paths, durations and an occasional commit hash.
func logText(n int) string {
	r := rng(88172645463325252)
	var b strings.Builder
	b.Grow(n + 256)
	for i := 0; b.Len() < n; i++ {
		switch r.next() % 5 {
		case 0:
			fmt.Fprintf(&b, "ok  \tgithub.com/example/app/pkg%d\t%d.%03ds\n", r.next()%90, r.next()%9, r.next()%1000)
		case 1:
			fmt.Fprintf(&b, "=== RUN   Test%s%s/case_%d\n", strings.ToUpper(words[r.next()%uint64(len(words))][:1]), words[r.next()%uint64(len(words))], i)
		case 2:
			fmt.Fprintf(&b, "    --- PASS: Test%d (0.%02ds)\n", i, r.next()%100)
		case 3:
			fmt.Fprintf(&b, "go: downloading example.com/mod%d v1.%d.%d\n", r.next()%500, r.next()%20, r.next()%10)
		default:
			fmt.Fprintf(&b, "[%05d] built object %016x%016x in %dms\n", i, r.next(), r.next(), r.next()%400)
		}
	}
	return b.String()[:n]
}

// report prints the table and writes the JSON file; it fails when a hook
// exceeded a bound.
func (b *bench) report() error {
	o := b.opts
	fmt.Printf("\nbounds: %s wall, %d MB peak RSS per hook\n\n", o.wallLimit, o.rssLimitMB)
	fmt.Printf("%-8s %-34s %-24s %9s %9s %9s  %s\n", "scenario", "hook", "input", "wall ms", "cpu ms", "rss MB", "")
	failed := 0
	for _, r := range b.results {
		verdict := "ok"
		if !r.Pass {
			verdict = "FAIL"
			failed++
		}
		fmt.Printf("%-8s %-34s %-24s %9.0f %9.0f %9.1f  %s\n", r.Scenario, r.Hook, r.Input, r.WallMS, r.CPUMS, r.MaxRSSMB, verdict)
	}
	if o.jsonOut != "" {
		data, err := json.MarshalIndent(map[string]any{
			"wall_limit_ms": o.wallLimit.Milliseconds(), "rss_limit_mb": o.rssLimitMB, "results": b.results,
		}, "", "  ")
		if err != nil {
			return fmt.Errorf("json: %w", err)
		}
		if err := os.WriteFile(o.jsonOut, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("json: %w", err)
		}
	}
	if failed > 0 {
		fmt.Printf("\n%d of %d hooks exceeded a bound\n", failed, len(b.results))
		return errOverBound
	}
	fmt.Printf("\nall %d hooks within bounds\n", len(b.results))
	return nil
}
