package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/iostreams"
)

// entireBin is the binary built once for end-to-end tests.
var entireBin string

func TestMain(m *testing.M) {
	// The end-to-end tests spend most of their time waiting for the
	// processes they start (entire, git, the agent clients), so go test's
	// default of GOMAXPROCS parallel tests leaves cores idle: twice that
	// took this package from 130 s to 100 s on 2 cores. An explicit
	// -parallel wins.
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	dir, err := os.MkdirTemp("", "entire-bin-")
	if err != nil {
		panic(err)
	}
	entireBin = filepath.Join(dir, "entire")
	// Stamped with the commit as scripts/install.sh does (the Go
	// toolchain's own VCS stamp is off on some machines and in worktrees).
	commit := "dev"
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	build := exec.Command("go", "build", "-ldflags", "-X github.com/entirecli/entire/cmd/entire/cli.commit="+commit, "-o", entireBin, "..")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build entire: " + err.Error())
	}
	// entire web runs the entire-web program installed beside entire.
	build = exec.Command("go", "build", "-o", filepath.Join(dir, "entire-web"), "../../entire-web")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build entire-web: " + err.Error())
	}
	code := m.Run()
	if summary, _ := hookTimes.summary(); summary != "" {
		// The real-agent tier's hook times, as the clients reported them;
		// go test ./... keeps a passing package's output to itself, so CI
		// names a file to print.
		summary = "real-agent hook wall times (as the clients report them):\n" + summary
		fmt.Print(summary)
		if p := os.Getenv("ENTIRE_HOOK_TIMES"); p != "" {
			os.WriteFile(p, []byte(summary), 0o644)
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// testFactory returns a factory rooted at dir with buffer streams.
func testFactory(dir string, env map[string]string) (*factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := iostreams.Test()
	f := &factory{
		IO:     ios,
		Getwd:  func() (string, error) { return dir, nil },
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
	f.OpenRepo = repoOpener(f)
	return f, out, errOut
}

// RunEntire runs the built binary in dir with extra environment and stdin,
// the way an agent or git would.
func RunEntire(t *testing.T, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(entireBin, args...)
	cmd.Dir = dir
	cmd.Env = append(gittest.Env(t.TempDir()), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if len(args) == 3 && args[0] == "hooks" && (args[2] == "stop" || args[2] == "after-agent") && IsRepo(dir) {
		// The turn's step is written by a process of its own after the
		// hook returned; what the tests look at next needs it, as every
		// command that reads steps waits for it.
		AwaitFinishers(t, dir)
	}
	return o.String(), e.String(), code
}

// IsRepo reports whether dir is inside a git work tree.
func IsRepo(dir string) bool {
	_, err := gittest.GitErr(dir, "rev-parse", "--git-dir")
	return err == nil
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	f, out, _ := testFactory(t.TempDir(), nil)
	if code := run([]string{"version"}, f); code != exitOK {
		t.Fatalf("version exit %d", code)
	}
	if !strings.HasPrefix(out.String(), "Entire CLI dev (dev)\nGo version: go") || !strings.Contains(out.String(), "OS/Arch: ") {
		t.Errorf("version output %q", out)
	}
	f, out, _ = testFactory(t.TempDir(), nil)
	if code := run([]string{"help", "--tree"}, f); code != exitOK || !strings.Contains(out.String(), "version - Show build information") {
		t.Errorf("help --tree: %d %q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	_, stderr, code := RunEntire(t, t.TempDir(), nil, "", "--no-such-flag")
	if code != 1 || !strings.Contains(stderr, "Error: Invalid usage: unknown flag: --no-such-flag") {
		t.Errorf("unknown flag: %d %q", code, stderr)
	}
	_, stderr, code = RunEntire(t, t.TempDir(), nil, "", "no-such-command")
	if code != 1 || !strings.Contains(stderr, "Invalid usage: unknown command") {
		t.Errorf("unknown command: %d %q", code, stderr)
	}
	if _, _, code := RunEntire(t, t.TempDir(), nil, "", "completion", "bash"); code != 0 {
		t.Errorf("completion exit %d", code)
	}
}
