package e2etest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// NewAutoCommitRepo is a session repository set to the auto-commit
// strategy, the settings change committed so that the work tree is clean.
func NewAutoCommitRepo(t *testing.T) *SessionRepo {
	t.Helper()
	r := NewSessionRepo(t)
	s := settings.Defaults()
	s.Strategy = settings.StrategyAutoCommit
	if err := settings.Save(settings.ProjectPath(r.Dir), s); err != nil {
		t.Fatal(err)
	}
	if out, err := GitCmd(t, r, "commit", "-q", "-am", "use auto-commit").CombinedOutput(); err != nil {
		t.Fatalf("commit settings: %v\n%s", err, out)
	}
	return r
}

// Sh runs script with /bin/sh -e in the work tree, as the agent's shell
// tool would, and fails the test when it fails.
func (r *SessionRepo) Sh(script string) {
	r.T.Helper()
	cmd := exec.Command("/bin/sh", "-ec", script)
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(r.T.TempDir()), r.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.T.Fatalf("sh %q: %v\n%s", script, err, out)
	}
}

// GitIn runs git with the installed hooks (the built binary on PATH) in dir
// and returns its combined output and error.
func (r *SessionRepo) GitIn(dir string, extraEnv []string, args ...string) (string, error) {
	r.T.Helper()
	cmd := GitCmd(r.T, r, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, extraEnv...)
	out, err := cmd.CombinedOutput()
	if len(args) > 0 && args[0] == "push" {
		// What the test looks at next is the push's whole result,
		// session data a background push sends included.
		AwaitBackground(r.T)
	}
	return string(out), err
}

// MustGit is gitIn from the root that fails the test when git fails.
func (r *SessionRepo) MustGit(args ...string) string {
	r.T.Helper()
	out, err := r.GitIn(r.Dir, nil, args...)
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// CommitAll commits the work tree through the installed hooks and returns
// the checkpoint its trailer names.
func (r *SessionRepo) CommitAll(msg string) string {
	r.T.Helper()
	gittest.Git(r.T, r.Dir, "add", "-A")
	if out, err := GitCmd(r.T, r, "commit", "-q", "-m", msg).CombinedOutput(); err != nil {
		r.T.Fatalf("git commit: %v\n%s", err, out)
	}
	return TrailerID(r.T, r.Dir, "HEAD")
}

// GitPath is a path in the work tree's git directory.
func GitPath(t *testing.T, dir, rel string) string {
	t.Helper()
	return filepath.Join(GitDir(t, dir), filepath.FromSlash(rel))
}

// Publish pushes the feature branch and the checkpoints of r (the
// metadata branch, or the checkpoint refs in the git-refs layout) to a new
// bare repository and returns its path.
func Publish(t *testing.T, r *SessionRepo) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, r.Dir, "init", "-q", "--bare", bare)
	args := []string{"push", "-q", "--no-verify", bare, "main", "feature"}
	if out, _ := gittest.GitErr(r.Dir, "rev-parse", "--verify", "-q", "refs/heads/entire/checkpoints/v1"); out != "" {
		args = append(args, "entire/checkpoints/v1")
	}
	if refs := gittest.Git(t, r.Dir, "for-each-ref", "refs/entire/checkpoints/"); refs != "" {
		args = append(args, "refs/entire/checkpoints/*:refs/entire/checkpoints/*")
	}
	gittest.Git(t, r.Dir, args...)
	return bare
}

// SecondClone makes a repository that has fetched only the given branches
// from remote (as another machine would), checked out on main.
func SecondClone(t *testing.T, remote string, branches ...string) string {
	t.Helper()
	dir := gittest.Init(t)
	gittest.Git(t, dir, "remote", "add", "origin", remote)
	for _, b := range append([]string{"main"}, branches...) {
		if b == "entire/checkpoints/v1" && gittest.Git(t, dir, "ls-remote", "origin", "refs/heads/"+b) == "" {
			continue // a git-refs repository: there is none
		}
		gittest.Git(t, dir, "fetch", "-q", "origin", "+refs/heads/"+b+":refs/remotes/origin/"+b)
	}
	gittest.Git(t, dir, "checkout", "-q", "-b", "main", "origin/main")
	return dir
}

// Snapshot records every file, directory and link of the work tree dir
// (see TreeState).
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

// WriteScript writes an executable script at path, making its directory.
func WriteScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// AssertGitHooks checks that every git hook entire installs is (or, when
// not wantInstalled, is not) entire's shim in dir.
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

// CloneSessionRepo clones remote into a new directory as a teammate's
// clone with entire's git hooks installed, and a Claude Code session of
// its own.
func CloneSessionRepo(t *testing.T, remote, sessionID string) *SessionRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	gittest.Git(t, filepath.Dir(dir), "clone", "-q", remote, dir)
	gittest.Configure(t, dir)
	env := append(ProgramEnv(t), "ENTIRE_TEST_TTY=0")
	if _, err := githook.Install(githook.Options{RepoRoot: dir, Env: append(gittest.Env(t.TempDir()), env...)}); err != nil {
		t.Fatal(err)
	}
	projects := t.TempDir()
	env = append(env, "ENTIRE_TEST_CLAUDE_PROJECT_DIR="+projects)
	return &SessionRepo{T: t, Dir: dir, Transcript: filepath.Join(projects, sessionID+".jsonl"), Env: env, SessionID: sessionID}
}

// SessionRepo is a repository set up as `entire enable` leaves it, with
// entire first on PATH so that git hooks run it, and a Claude Code session
// played through the real hooks.
type SessionRepo struct {
	T          *testing.T
	Dir        string
	Transcript string
	Env        []string
	SessionID  string
	Turn       int
}

// NewSessionRepo returns a repository with one commit, enabled for Claude
// Code with the default settings (committed) and the git hooks installed.
// It is a copy of a repository set up so once per test binary: setting
// one up took seven git processes, and the tiers make hundreds.
func NewSessionRepo(t *testing.T) *SessionRepo {
	t.Helper()
	tmpl, err := sessionTemplate()
	if err != nil {
		t.Fatalf("session repository template: %v", err)
	}
	dir := t.TempDir()
	if err := copyTree(tmpl, dir); err != nil {
		t.Fatalf("copy the session repository template: %v", err)
	}
	env := append(ProgramEnv(t), "ENTIRE_TEST_TTY=0")
	projects := t.TempDir()
	env = append(env, "ENTIRE_TEST_CLAUDE_PROJECT_DIR="+projects)
	return &SessionRepo{T: t, Dir: dir, Transcript: filepath.Join(projects, "sess-1.jsonl"), Env: env, SessionID: "sess-1"}
}

// NewRefsSessionRepo is NewSessionRepo with the git-refs checkpoint layout
// (checkpoints.primary.type, SPEC 10.1) committed in the project
// settings, as a first `entire enable` of today leaves a repository.
func NewRefsSessionRepo(t *testing.T) *SessionRepo {
	t.Helper()
	r := NewSessionRepo(t)
	r.UseLayout(settings.CheckpointsGitRefs)
	return r
}

// UseLayout commits checkpoints.primary.type typ in the project settings
// (without running hooks).
func (r *SessionRepo) UseLayout(typ string) {
	r.T.Helper()
	s, err := settings.LoadFile(settings.ProjectPath(r.Dir))
	if err != nil {
		r.T.Fatal(err)
	}
	if err := s.SetCheckpointsType(typ); err != nil {
		r.T.Fatal(err)
	}
	if err := settings.Save(settings.ProjectPath(r.Dir), s); err != nil {
		r.T.Fatal(err)
	}
	gittest.Git(r.T, r.Dir, "add", settings.ProjectRel)
	gittest.Git(r.T, r.Dir, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "checkpoints: "+typ)
}

// sessionTemplate returns the repository NewSessionRepo copies, building
// it on the first call: README.md committed, then entire's default
// settings committed with the git hooks installed, as `entire enable`
// leaves a repository.
func sessionTemplate() (string, error) {
	tm := &the.template
	tm.once.Do(func() { tm.dir, tm.err = buildSessionTemplate(filepath.Join(the.binDir, "template")) })
	return tm.dir, tm.err
}

func buildSessionTemplate(dir string) (string, error) {
	git := func(args ...string) error {
		if out, err := gittest.GitErr(dir, args...); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := git("init", "-q", "-b", "main"); err != nil {
		return "", err
	}
	if err := gittest.AppendConfig(dir); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644); err != nil {
		return "", err
	}
	// Without hooks: an `entire` the user installed on PATH would run
	// them (and write .entire/logs).
	noHooks := "core.hooksPath=" + filepath.Join(dir, ".git", "no-hooks")
	if err := git("add", "-A"); err != nil {
		return "", err
	}
	if err := git("-c", noHooks, "commit", "-q", "-m", "initial"); err != nil {
		return "", err
	}
	if err := settings.Save(settings.ProjectPath(dir), settings.Defaults()); err != nil {
		return "", err
	}
	if _, err := settings.EnsureDir(dir); err != nil {
		return "", err
	}
	env := append(gittest.Env(filepath.Join(dir, ".git", "home")), "PATH="+the.binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "ENTIRE_TEST_TTY=0")
	if _, err := githook.Install(githook.Options{RepoRoot: dir, Env: env}); err != nil {
		return "", err
	}
	if err := git("add", "-A"); err != nil {
		return "", err
	}
	if err := git("-c", noHooks, "commit", "-q", "-m", "enable entire"); err != nil {
		return "", err
	}
	return dir, nil
}

// copyTree copies the directory src (regular files, directories and
// symbolic links) to dst, keeping file modes.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, info.Mode().Perm())
		}
	})
}

// GitOnlyPath is a PATH with git and nothing else (no agent client).
func GitOnlyPath(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH")
	}
	dir := t.TempDir()
	if err := os.Symlink(git, filepath.Join(dir, "git")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WorkedSessionRepo is NewSessionRepo after a session start and one agent
// turn, prompted with prompt, that wrote a.txt.
func WorkedSessionRepo(t *testing.T, prompt string) *SessionRepo {
	t.Helper()
	r := NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn(prompt, map[string]string{"a.txt": "a\n"})
	return r
}

// GitCmd is a git command run in the session repository with the test's
// environment (the built binary on PATH).
func GitCmd(t *testing.T, r *SessionRepo, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
	return cmd
}

// Commit commits paths with the installed git hooks and returns the
// checkpoint ID of the commit's trailer and git's stderr.
func (r *SessionRepo) Commit(msg string, extraEnv []string, paths ...string) (id, stderr string) {
	r.T.Helper()
	gittest.Git(r.T, r.Dir, append([]string{"add"}, paths...)...)
	cmd := GitCmd(r.T, r, "commit", "-q", "-m", msg)
	cmd.Env = append(cmd.Env, extraEnv...)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		r.T.Fatalf("git commit: %v\n%s", err, errOut.String())
	}
	for _, l := range strings.Split(gittest.Git(r.T, r.Dir, "log", "-1", "--format=%B"), "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			id = v
		}
	}
	if len(id) != 12 && len(id) != 26 {
		r.T.Fatalf("commit not linked")
	}
	return id, errOut.String()
}
