package e2etest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// ShadowBranch returns the session's shadow branch ("" when none).
func (r *SessionRepo) ShadowBranch() string {
	r.T.Helper()
	for _, b := range strings.Fields(gittest.Git(r.T, r.Dir, "branch", "--list", "entire/*", "--format=%(refname:short)")) {
		if b != "entire/checkpoints/v1" {
			return b
		}
	}
	return ""
}

// commitAll commits paths with the installed git hooks and returns the
// checkpoint ID of the Commit's trailer and git's stderr.
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
	if len(id) != 12 {
		r.T.Fatalf("commit not linked")
	}
	return id, errOut.String()
}

// SlotFile reads a file of session slot 0 of a committed checkpoint.
func (r *SessionRepo) SlotFile(id, name string) string {
	r.T.Helper()
	return gittest.Git(r.T, r.Dir, "show", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/0/"+name)
}

// PendingTask reads a pending task record of the session.
func (r *SessionRepo) PendingTask(key string) map[string]any {
	r.T.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, ".entire", "tmp", "subagents", r.SessionID, key+".json"))
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.T.Fatalf("pending record %s: %v", key, err)
	}
	return m
}
