package push

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

var fixedNow = func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }

// syncBuffer is a bytes.Buffer safe for the log writer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func openRepo(t testing.TB, dir string) *gitrepo.Repo {
	t.Helper()
	r, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// testEnv keeps the developer's global and system git config out of the
// git commands PrePush runs.
func testEnv(t testing.TB) []string {
	return []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=" + t.TempDir()}
}

// newBare creates an empty bare repository and returns its path.
func newBare(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, filepath.Dir(dir), "init", "-q", "--bare", "-b", "main", dir)
	return dir
}

// newClone creates a work repository with one commit whose origin is a new
// bare repository holding main. It returns the work dir and the bare dir.
func newClone(t testing.TB) (work, bare string) {
	t.Helper()
	bare = newBare(t)
	work = gittest.InitWithCommit(t)
	gittest.Git(t, work, "remote", "add", "origin", bare)
	gittest.Git(t, work, "push", "-q", "origin", "main")
	return work, bare
}

// cloneOf clones bare into a new directory configured like gittest.Init.
func cloneOf(t testing.TB, bare string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	gittest.Git(t, filepath.Dir(dir), "clone", "-q", bare, dir)
	gittest.Configure(t, dir)
	return dir
}

// writeCheckpoint writes one session into checkpoint id of repo's metadata
// branch.
func writeCheckpoint(t testing.TB, repo *gitrepo.Repo, id checkpoint.ID, session string, files ...string) {
	t.Helper()
	store := checkpoint.NewStore(repo, fixedNow)
	_, err := store.WriteSession(context.Background(), id, checkpoint.SessionWrite{
		Metadata: checkpoint.SessionMetadata{SessionID: session, Strategy: checkpoint.StrategyManualCommit,
			CheckpointsCount: 1, FilesTouched: files},
		Prompts: "prompt of " + session,
	}, checkpoint.CommitInfo{})
	if err != nil {
		t.Fatal(err)
	}
}

// remoteRef returns what ref points to in the repository at dir ("" when
// it does not exist).
func remoteRef(t testing.TB, dir, ref string) string {
	t.Helper()
	out, err := gittest.GitErr(dir, "rev-parse", "--verify", "-q", ref)
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace([]byte(out)))
}

func localRef(t testing.TB, repo *gitrepo.Repo, name plumbing.ReferenceName) string {
	t.Helper()
	h, err := repo.ReadRef(name)
	if err != nil {
		t.Fatal(err)
	}
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// origin is the destination of most tests: the remote named origin.
var origin = RemoteDestination("origin")

// destOr is the destination of the remote named name, origin for "".
func destOr(name string) Destination {
	if name == "" {
		return origin
	}
	return RemoteDestination(name)
}
