package e2etest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Entire runs the built binary in the session repository.
func (r *SessionRepo) Entire(args ...string) (stdout, stderr string, code int) {
	r.T.Helper()
	return RunEntire(r.T, r.Dir, r.Env, "", args...)
}

// MustEntire is entire that fails the test on a non-zero exit and returns
// stdout.
func (r *SessionRepo) MustEntire(args ...string) string {
	r.T.Helper()
	out, errOut, code := r.Entire(args...)
	if code != 0 {
		r.T.Fatalf("entire %s: exit %d: %s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// ShadowBranches lists the shadow branches of the repository.
func (r *SessionRepo) ShadowBranches() []string {
	r.T.Helper()
	out := gittest.Git(r.T, r.Dir, "branch", "--list", "entire/*", "--format=%(refname:short)")
	var bs []string
	for _, b := range strings.Fields(out) {
		if b != "entire/checkpoints/v1" {
			bs = append(bs, b)
		}
	}
	return bs
}

// StatePath is the state file of a session.
func (r *SessionRepo) StatePath(id string) string {
	return filepath.Join(r.Dir, ".git", "entire-sessions", id+".json")
}

// State reads a session's State file as a map (nil when absent).
func (r *SessionRepo) State(id string) map[string]any {
	r.T.Helper()
	b, err := os.ReadFile(r.StatePath(id))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		r.T.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.T.Fatal(err)
	}
	return m
}

// SwitchSession makes the following hooks those of another session with
// its own transcript.
func (r *SessionRepo) SwitchSession(id string) {
	r.SessionID = id
	r.Transcript = filepath.Join(filepath.Dir(r.Transcript), id+".jsonl")
}
