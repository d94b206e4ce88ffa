// Package e2etest is the harness of the end-to-end test tiers of entire
// (cmd/entire/e2e/...): the tests run entire as an agent and git do, as a
// program on PATH, without building it. The tier's test binary is that
// program: Main runs the entire (or entire-web) command line instead of the
// tests when the binary is started under that name or with the role in
// its environment, which every process a test starts inherits (git runs
// the hooks, the hooks start their background work with os.Executable).
// Coverage of those runs is written to the test's -test.gocoverdir.
//
// It also holds what the tiers share: repositories set up as `entire
// enable` leaves them, agent sessions played through the real hooks, the
// waits for background work (on the processes' exit, never a sleep), and
// readers of what entire stored.
package e2etest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/entirecli/entire/cmd/entire/cli"
)

// Environment of every process a test starts.
const (
	// roleEnv names the program the test binary is to run: "entire" or
	// "entire-web".
	roleEnv = "ENTIRE_E2E_ROLE"
	// runEnv marks the processes one test caused (see AwaitBackground).
	runEnv = "ENTIRE_E2E_RUN"
)

// harness is the state Main sets up once per test binary.
type harness struct {
	binDir string // holds entire and entire-web, links to the test binary
	// coverDir receives the coverage of the programs' runs (the test's
	// -test.gocoverdir), "" without coverage.
	coverDir string
	// template is the repository NewSessionRepo copies, built by the
	// first test that needs it (see sessionTemplate).
	template struct {
		once sync.Once
		dir  string
		err  error
	}
}

// the is the harness of this test binary, set by Main before any test
// runs and never changed after.
var the harness

// Program is a program besides entire that the tests of a tier run, such
// as entire-web (webcli.Main): only the tiers that need it link it, since
// every package a binary links builds its state before main and entire-web's
// highlighter costs each start of entire 20 ms.
type Program struct {
	Name string
	Main func() int
}

// Main runs the tests of a tier and exits (call it from TestMain), or, in
// a process a test started, the program it stands for: entire, or one of
// programs.
func Main(m *testing.M, programs ...Program) { os.Exit(Run(m, programs...)) }

// Run is Main that returns the tests' exit status, for a TestMain with
// work of its own after the tests.
func Run(m *testing.M, programs ...Program) int { return RunParallel(m, 1, programs...) }

// RunParallel is Run with perCore times GOMAXPROCS tests at once unless
// -parallel says otherwise: a tier whose tests mostly wait (the real
// clients) runs more of them than go test's default.
func RunParallel(m *testing.M, perCore int, programs ...Program) int {
	all := append([]Program{{Name: "entire", Main: cli.Main}}, programs...)
	r := role(all)
	for _, p := range all {
		if p.Name == r {
			// What this process starts through os.Executable (the test
			// binary's own path) runs as the same program.
			os.Setenv(roleEnv, r)
			os.Exit(p.Main())
		}
	}
	if os.Getenv(runEnv) != "" {
		// A process a test started ran the test binary with no program
		// to stand for: running the tests again inside a test would
		// multiply them. Say so and fail instead.
		fmt.Fprintf(os.Stderr, "e2etest: %s started with no program to run (%s unset)\n", os.Args[0], roleEnv)
		return 2
	}
	// go test's default -parallel (GOMAXPROCS) suits most tiers: their
	// tests keep the cores busy with the processes they start, and twice
	// as many at once measured 8% slower (contention). An explicit
	// -parallel wins.
	flag.Parse()
	if perCore > 1 {
		set := false
		flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
		if !set {
			flag.Set("test.parallel", strconv.Itoa(perCore*runtime.GOMAXPROCS(0)))
		}
	}
	if f := flag.Lookup("test.gocoverdir"); f != nil {
		the.coverDir = f.Value.String()
	}
	dir, err := os.MkdirTemp("", "entire-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2etest:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err == nil {
		for _, p := range all {
			if err = os.Symlink(self, filepath.Join(dir, p.Name)); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2etest:", err)
		return 2
	}
	the.binDir = dir
	return m.Run()
}

// role is the program this process is to run: by the name it was started
// as (a hook's `entire` found on PATH), else by the environment (a
// background process started through os.Executable); "" for the tests.
func role(programs []Program) string {
	base := filepath.Base(os.Args[0])
	for _, p := range programs {
		if p.Name == base {
			return base
		}
	}
	return os.Getenv(roleEnv)
}

// BinDir is the directory of the entire program (and the tier's others),
// first on the PATH of every process a test starts.
func BinDir() string { return the.binDir }

// EntireBin is the path of the entire program.
func EntireBin() string { return filepath.Join(the.binDir, "entire") }

// ProgramEnv is the environment entries every process a test starts needs
// so that entire runs: the programs first on PATH, the role for
// background processes, coverage, and the test's marker (AwaitBackground).
func ProgramEnv(t testing.TB) []string {
	env := []string{
		"PATH=" + the.binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		roleEnv + "=entire",
		runEnv + "=" + marker(t),
	}
	if the.coverDir != "" {
		env = append(env, "GOCOVERDIR="+the.coverDir)
	}
	return env
}
