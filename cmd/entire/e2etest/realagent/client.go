package realagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// EnvAgentsDir names the directory scripts/install-agents.sh installs the
// clients into.
const EnvAgentsDir = "ENTIRE_AGENTS_DIR"

// AgentsDir returns the clients' install directory: $ENTIRE_AGENTS_DIR, else
// the user cache directory's entire-agents.
func AgentsDir() string {
	if d := os.Getenv(EnvAgentsDir); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "entire-agents")
	}
	return filepath.Join(os.TempDir(), "entire-agents")
}

// Client names.
const (
	ClaudeCode = "claude"
	GeminiCLI  = "gemini"
)

// Installed is one installed version of a client.
type Installed struct {
	// Name is the client's name (ClaudeCode, GeminiCLI).
	Name string
	// Version is the version installed.
	Version string
	// Newest tells the newest published version from the pinned one.
	Newest bool
}

// Label names the version in a subtest: the client's name for the pinned
// version, name@version for the newest.
func (i Installed) Label() string {
	if i.Newest {
		return i.Name + "@" + i.Version
	}
	return i.Name
}

// Versions returns the versions of client that scripts/install-agents.sh
// installed, as its clients.json says: the pinned one, then the newest
// when it differs. Without clients.json it returns the pinned version
// with no version number, which Binary then reports as not installed.
func Versions(client string) []Installed {
	pinned := Installed{Name: client}
	b, err := os.ReadFile(filepath.Join(AgentsDir(), "clients.json"))
	if err != nil {
		return []Installed{pinned}
	}
	var all map[string]struct {
		Pinned string `json:"pinned"`
		Newest string `json:"newest"`
	}
	if json.Unmarshal(b, &all) != nil {
		return []Installed{pinned}
	}
	v := all[client]
	pinned.Version = v.Pinned
	out := []Installed{pinned}
	if v.Newest != "" && v.Newest != v.Pinned {
		out = append(out, Installed{Name: client, Version: v.Newest, Newest: true})
	}
	return out
}

// Binary returns the path of an installed client version. Without it the
// test is skipped with one line, or fails when CI is set.
func Binary(t testing.TB, inst Installed) string {
	t.Helper()
	p := filepath.Join(AgentsDir(), inst.Name+"-"+inst.Version, "node_modules", ".bin", inst.Name)
	if inst.Version != "" {
		if _, err := os.Stat(p); err == nil {
			if _, err := exec.LookPath("node"); err == nil {
				return p
			}
		}
	}
	msg := fmt.Sprintf("real-agent tier: %s %s is not installed in %s (run scripts/install-agents.sh)", inst.Name, inst.Version, AgentsDir())
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// closedPort returns the address of a local port nothing listens on, for
// the proxy variables: any request sent there fails at once.
func closedPort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("closed port: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// Env is the environment a client runs in.
type Env struct {
	// Home is the throwaway HOME.
	Home string
	// Vars are the variables besides the process's own PATH.
	Vars []string

	srvURL  string
	trusted []string
}

// NewEnv returns a fresh environment for clients that talk to srv: a new
// HOME (with Gemini's user settings and trust for the given folders), the
// server's URL for both APIs, non-essential traffic off, and HTTP(S)_PROXY
// pointed at a closed local port. program holds the environment entries
// the program under test needs (its PATH, with entire's directory first,
// replaces the process's own).
func NewEnv(t testing.TB, srv *Server, program []string, trusted ...string) *Env {
	t.Helper()
	home := t.TempDir()
	proxy := "http://" + closedPort(t)
	env := &Env{Home: home, srvURL: srv.URL()}
	env.Vars = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"USER=tester",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"TMPDIR=" + os.TempDir(),
		"HTTP_PROXY=" + proxy, "HTTPS_PROXY=" + proxy, "http_proxy=" + proxy, "https_proxy=" + proxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test User", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test User", "GIT_COMMITTER_EMAIL=test@example.com",
		// Claude Code.
		"ANTHROPIC_BASE_URL=" + srv.URL(),
		"ANTHROPIC_API_KEY=sk-ant-test-key-for-the-scripted-server",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"IS_SANDBOX=1",
		// Gemini CLI.
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL(),
		"GEMINI_API_KEY=test-key-for-the-scripted-server",
		"NO_BROWSER=1",
		// Gemini CLI otherwise starts a second node process of itself only
		// to raise V8's heap limit; the child is given exactly this
		// variable. One process instead of two halves each launch's start
		// (about 0.65 s of CPU) and changes nothing the hooks see.
		"GEMINI_CLI_NO_RELAUNCH=true",
		// The hooks' work-tree watcher serves repositories of about 10k
		// files and more; the tier's are small, and the real clients must
		// run the hooks the way large repositories do.
		"ENTIRE_FSMONITOR=1",
		"CI=", // Gemini CLI changes its UI under CI; the test's own CI must not leak in
	}
	env.Vars = append(env.Vars, openAIVars(home, srv)...)
	env.Vars = append(env.Vars, pluginVars(home)...)
	for _, v := range program {
		if strings.HasPrefix(v, "PATH=") {
			env.Vars[0] = v
		} else {
			env.Vars = append(env.Vars, v)
		}
	}
	env.writeGeminiHome(t, trusted)
	env.writeOpenAIHomes(t, srv.URL(), trusted)
	env.writePluginHomes(t, srv.URL())
	env.writeProfile(t, strings.TrimPrefix(env.Vars[0], "PATH="))
	// An installed client's configuration folder (entire restores sessions
	// only where the client keeps its data).
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	return env
}

// Trust marks more folders as trusted by Gemini CLI, Codex CLI and
// Copilot CLI.
func (e *Env) Trust(t testing.TB, dirs ...string) {
	t.Helper()
	e.writeGeminiHome(t, dirs)
	e.writeOpenAIHomes(t, e.srvURL, dirs)
}

func (e *Env) writeGeminiHome(t testing.TB, trusted []string) {
	t.Helper()
	dir := filepath.Join(e.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := map[string]any{
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
	}
	writeJSONFile(t, filepath.Join(dir, "settings.json"), settings)
	trust := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(dir, "trustedFolders.json")); err == nil {
		json.Unmarshal(b, &trust)
	}
	for _, d := range trusted {
		trust[d] = "TRUST_FOLDER"
	}
	writeJSONFile(t, filepath.Join(dir, "trustedFolders.json"), trust)
}

func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Result is what one client run printed.
type Result struct {
	Stdout, Stderr string
	ExitCode       int
	Elapsed        time.Duration
}

// RunTimeout is the time limit of one client run.
const RunTimeout = 90 * time.Second

// Run runs a client binary with args in dir under env, with RunTimeout.
// A run that times out fails the test; a non-zero exit is returned.
func Run(t testing.TB, env *Env, dir, bin string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env.Vars
	cmd.Stdin = strings.NewReader("")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errOut.String(), Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: no exit after %s\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), RunTimeout, tail(res.Stdout), tail(res.Stderr))
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", bin, err)
	}
	return res
}

// tail returns the last 4 KB of s.
func tail(s string) string {
	if len(s) > 4096 {
		return "…" + s[len(s)-4096:]
	}
	return s
}
