package e2etest

import (
	"os"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

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

// ReadTranscript returns the live transcript.
func (r *SessionRepo) ReadTranscript() string {
	r.T.Helper()
	b, err := os.ReadFile(r.Transcript)
	if err != nil {
		r.T.Fatal(err)
	}
	return string(b)
}
