package strategy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	_ "github.com/entirecli/entire/agent/claudecode"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
	"github.com/go-git/go-git/v5/plumbing"
)

// testEnv is an auto-commit environment over a fresh repository with one
// commit.
func testEnv(t *testing.T) (*Env, *bytes.Buffer) {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Defaults()
	s.Strategy = settings.StrategyAutoCommit
	var stderr bytes.Buffer
	return &Env{
		Repo: repo, Sessions: session.NewStore(session.Options{GitCommonDir: repo.CommonDir}),
		Settings: s, Redactor: NoRedaction{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Stderr: &stderr, Now: time.Now, Getenv: func(string) string { return "" }, CLIVersion: "test",
	}, &stderr
}

func TestNewPicksAutoCommit(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	if _, ok := New(env).(*AutoCommit); !ok {
		t.Error("New with strategy auto-commit did not return AutoCommit")
	}
	if _, ok := New(env).(GitHooks); ok {
		t.Error("AutoCommit must not act on the user's commits")
	}
	env.Settings = settings.Defaults()
	if _, ok := New(env).(*ManualCommit); !ok {
		t.Error("New with default settings did not return ManualCommit")
	}
}

func TestCommitCode(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	dir := env.Repo.Root
	gittest.WriteFile(t, dir, "keep.txt", "keep\n")
	gittest.WriteFile(t, dir, "gone.txt", "gone\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "two files")
	gittest.WriteFile(t, dir, "README.md", "changed\n")
	gittest.WriteFile(t, dir, "src/new.go", "package src\n")
	gittest.WriteFile(t, dir, "run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("keep.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	// The user's own staged change to another file stays staged.
	gittest.WriteFile(t, dir, "keep.txt", "user edit\n")
	gittest.Git(t, dir, "add", "keep.txt")

	a := NewAutoCommit(env)
	head, _ := env.Repo.Head()
	id := checkpoint.ID("0123456789ab")
	paths := []string{"README.md", "gone.txt", "link", "run.sh", "src/new.go"}
	commit, err := a.commitCode(context.Background(), head, paths, "Do things", id)
	if err != nil || commit.IsZero() {
		t.Fatalf("commitCode: %v %v", commit, err)
	}
	if got := gittest.Git(t, dir, "rev-parse", "HEAD"); got != commit.String() {
		t.Errorf("HEAD %s, want %s", got, commit)
	}
	if msg := gittest.Git(t, dir, "log", "-1", "--format=%B"); msg != "Do things\n\nEntire-Checkpoint: 0123456789ab" {
		t.Errorf("message %q", msg)
	}
	if got := gittest.Git(t, dir, "show", "--format=", "--name-status", "HEAD"); got != "M\tREADME.md\nD\tgone.txt\nA\tlink\nA\trun.sh\nA\tsrc/new.go" {
		t.Errorf("committed:\n%s", got)
	}
	if modes := gittest.Git(t, dir, "ls-tree", "HEAD", "link", "run.sh"); !strings.Contains(modes, "120000 blob") || !strings.Contains(modes, "100755 blob") {
		t.Errorf("modes:\n%s", modes)
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "M  keep.txt" {
		t.Errorf("status after commit %q, want only the user's staged change", st)
	}
	if reflog := gittest.Git(t, dir, "reflog", "-1", "--format=%gs"); reflog != "entire: Do things" {
		t.Errorf("reflog %q", reflog)
	}

	// Nothing left to commit: no commit.
	again, err := a.commitCode(context.Background(), commit, []string{"README.md"}, "Again", id)
	if err != nil || !again.IsZero() {
		t.Errorf("commit of unchanged content: %v %v", again, err)
	}
	gittest.Fsck(t, dir)
}

func TestCommitCodeRefusesMovedBranch(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	dir := env.Repo.Root
	stale, _ := env.Repo.Head()
	gittest.WriteFile(t, dir, "user.txt", "user\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "user commit")
	moved := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.WriteFile(t, dir, "agent.txt", "agent\n")
	_, err := NewAutoCommit(env).commitCode(context.Background(), stale, []string{"agent.txt"}, "Agent", "0123456789ab")
	if err == nil {
		t.Fatal("commit on top of a stale HEAD succeeded")
	}
	if got := gittest.Git(t, dir, "rev-parse", "HEAD"); got != moved {
		t.Errorf("HEAD moved to %s", got)
	}
}

func TestCommitCodeDetachedHead(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	dir := env.Repo.Root
	gittest.Git(t, dir, "checkout", "-q", "--detach")
	head, _ := env.Repo.Head()
	gittest.WriteFile(t, dir, "a.txt", "a\n")
	commit, err := NewAutoCommit(env).commitCode(context.Background(), head, []string{"a.txt"}, "Detached", "0123456789ab")
	if err != nil || commit.IsZero() {
		t.Fatalf("commitCode: %v", err)
	}
	if got := gittest.Git(t, dir, "rev-parse", "HEAD"); got != commit.String() {
		t.Errorf("detached HEAD %s, want %s", got, commit)
	}
	if b := gittest.Git(t, dir, "rev-parse", "main"); b == commit.String() {
		t.Error("commit on a detached HEAD moved main")
	}
}

// writeTranscript appends Claude Code JSONL lines.
func writeTranscript(t *testing.T, path string, lines ...map[string]any) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		b, _ := json.Marshal(l)
		f.Write(append(b, '\n'))
	}
}

func TestTurnEndWaitsForMerge(t *testing.T) {
	t.Parallel()
	env, stderr := testEnv(t)
	dir := env.Repo.Root
	ag, err := agent.Get(agent.AgentNameClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "s.jsonl")
	in := TurnInput{Agent: ag, SessionID: "s1", TranscriptPath: transcript, Prompt: "add a"}
	a := NewAutoCommit(env)
	ctx := context.Background()
	if err := a.TurnStart(ctx, in); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, dir, "a.txt", "a\n")
	writeTranscript(t, transcript, map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": "add a"}})
	head, _ := env.Repo.Head()
	mergeHead := filepath.Join(env.Repo.GitDir, "MERGE_HEAD")
	if err := os.WriteFile(mergeHead, []byte(head.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.TurnEnd(ctx, in); err != nil {
		t.Fatal(err)
	}
	if now, _ := env.Repo.Head(); now != head || !strings.Contains(stderr.String(), "a merge is in progress") {
		t.Fatalf("turn end during a merge committed (%s) or said %q", now, stderr)
	}
	os.Remove(mergeHead)
	if err := a.TurnStart(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := a.TurnEnd(ctx, in); err != nil {
		t.Fatal(err)
	}
	if files := gittest.Git(t, dir, "show", "--format=", "--name-only", "HEAD"); files != "a.txt" {
		t.Errorf("the deferred file was not committed at the next turn end: %q\n%s", files, stderr)
	}
}

func TestTurnEndWithoutCommits(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Repo: repo, Sessions: session.NewStore(session.Options{GitCommonDir: repo.CommonDir}), Settings: settings.Defaults(),
		Redactor: NoRedaction{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now}
	err = NewAutoCommit(env).TurnEnd(context.Background(), TurnInput{SessionID: "s"})
	if !errors.Is(err, ErrNoCommits) {
		t.Errorf("turn end in an empty repository: %v", err)
	}
}

func TestCondenseSessionErrors(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	m := NewManualCommit(env)
	err := m.CondenseSession(context.Background(), "nope", "0123456789ab")
	if !errors.Is(err, session.ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	head, _ := env.Repo.Head()
	if err := env.Sessions.Save(&session.State{SessionID: "s1", BaseCommit: head.String(), StartedAt: time.Now(), CheckpointCount: 1}); err != nil {
		t.Fatal(err)
	}
	if err := m.CondenseSession(context.Background(), "s1", "0123456789ab"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("session without shadow branch: %v", err)
	}
	if tip, _ := env.Repo.ReadRef(checkpoint.MetadataRef); tip != plumbing.ZeroHash {
		t.Error("a failed condensation wrote the metadata branch")
	}
}

func TestChangedOnlyAndExcludeAll(t *testing.T) {
	t.Parallel()
	tests := []struct {
		paths, other, changed, excluded []string
	}{
		{nil, nil, nil, nil},
		{[]string{"a", "b"}, []string{"b", "c"}, []string{"b"}, []string{"a"}},
		{[]string{"a"}, nil, nil, []string{"a"}},
	}
	for _, tt := range tests {
		if got := changedOnly(tt.paths, tt.other); strings.Join(got, ",") != strings.Join(tt.changed, ",") {
			t.Errorf("changedOnly(%v, %v) = %v", tt.paths, tt.other, got)
		}
		if got := excludeAll(tt.paths, tt.other); strings.Join(got, ",") != strings.Join(tt.excluded, ",") {
			t.Errorf("excludeAll(%v, %v) = %v", tt.paths, tt.other, got)
		}
	}
}
