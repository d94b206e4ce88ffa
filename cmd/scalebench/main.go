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
//	go run ./cmd/scalebench                 # builds ./cmd/entire
//	go run ./cmd/scalebench --bin ~/go/bin/entire --json out.json
package main

import (
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
	flag.StringVar(&o.scenarios, "scenarios", "tool60,long75", "comma-separated scenarios: tool60 (one 60 MB tool result), long75 (a 75 MB turn), history (a metadata branch of --history checkpoints, then its migration to refs), team (--team-clones clones pushing at once), refs (--history checkpoints each on its own ref), lines (blame of a 5,000-line file and search over --history checkpoints)")
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
		case "refs":
			play = b.refs
		case "lines":
			play = b.lines
		case "":
			continue
		default:
			return fmt.Errorf("unknown scenario %q (tool60, long75, history, team, refs, lines)", name)
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
	// entire-web beside it: entire search and entire web run it.
	for _, prog := range []string{"entire", "entire-web"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(work, "bin", prog), "./cmd/"+prog)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("go build ./cmd/%s (run from the module root, or pass --bin): %w", prog, err)
		}
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
