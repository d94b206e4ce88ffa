package e2etest

import (
	"encoding/json"
	"strings"
	"testing"

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

// CheckpointOf returns the Entire-Checkpoint trailer of a commit message.
func CheckpointOf(t *testing.T, msg string) string {
	t.Helper()
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			return v
		}
	}
	t.Fatalf("no Entire-Checkpoint trailer in:\n%s", msg)
	return ""
}

// SessionMeta reads the metadata.json of slot 0 of a checkpoint.
func SessionMeta(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	raw := gittest.Git(t, dir, "show", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/0/metadata.json")
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("session metadata of %s: %v\n%s", id, err, raw)
	}
	return m
}
