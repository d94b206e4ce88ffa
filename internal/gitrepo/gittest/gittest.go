// Package gittest builds real git repositories in temporary directories for
// tests, with a fixed identity and no global configuration leaking in.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Env is the environment tests run git with: a fixed identity and dates,
// no system or global config, and no automatic maintenance (which would
// start a detached git after every commit).
func Env(home string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test User", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test User", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=maintenance.auto", "GIT_CONFIG_VALUE_0=false",
	)
}

// Init creates an empty repository on branch main in a new temporary
// directory and returns its path.
func Init(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main")
	Configure(t, dir)
	return dir
}

// repoConfig is what Configure adds to a test repository's config.
const repoConfig = `[user]
	name = Test User
	email = test@example.com
[gc]
	auto = 0
[maintenance]
	auto = false
[commit]
	gpgsign = false
`

// Configure gives the repository (or clone) whose work tree is dir the
// test identity, no signing and no automatic gc or maintenance, whatever
// environment later runs git in it. It appends to .git/config instead of
// running git config four times: tests create hundreds of repositories.
func Configure(t testing.TB, dir string) {
	t.Helper()
	if err := AppendConfig(dir); err != nil {
		t.Fatal(err)
	}
}

// AppendConfig is Configure for code without a test at hand.
func AppendConfig(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("configure test repository: %w", err)
	}
	if _, err := f.WriteString(repoConfig); err != nil {
		f.Close()
		return fmt.Errorf("configure test repository: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("configure test repository: %w", err)
	}
	return nil
}

// InitWithCommit is Init plus one commit holding README.md.
func InitWithCommit(t testing.TB) string {
	t.Helper()
	dir := Init(t)
	WriteFile(t, dir, "README.md", "hello\n")
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// Git runs git in dir and returns its trimmed standard output; it fails the
// test when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := GitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(out, "\n")
}

// GitErr runs git in dir and returns its combined output and error.
func GitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = Env(filepath.Join(os.TempDir(), "gittest-home"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// WriteFile writes content to the slash-separated path rel under dir,
// creating parent directories.
func WriteFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Fsck runs `git fsck --strict` and fails the test on any complaint.
func Fsck(t testing.TB, dir string) {
	t.Helper()
	out, err := GitErr(dir, "fsck", "--strict", "--no-progress", "--no-dangling")
	if err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}

// EmptyCommits adds one empty commit per message on top of the branch
// checked out in dir, in that order, with one `git fast-import` (a test
// that needs a hundred commits need not start a hundred gits). The work
// tree and index stay as they are: every commit has HEAD's tree.
func EmptyCommits(t testing.TB, dir string, messages ...string) {
	t.Helper()
	branch := Git(t, dir, "symbolic-ref", "HEAD")
	head := Git(t, dir, "rev-parse", "HEAD")
	var b strings.Builder
	for i, m := range messages {
		fmt.Fprintf(&b, "commit %s\ncommitter Test <test@example.com> %d +0000\ndata %d\n%s\n", branch, 1700000000+i, len(m), m)
		if i == 0 {
			fmt.Fprintf(&b, "from %s\n", head)
		}
		b.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = Env(filepath.Join(os.TempDir(), "gittest-home"))
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
}
