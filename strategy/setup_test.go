package strategy

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
)

// A turn start of either strategy asks the hook layer to repair the git
// hooks, with the settings' local_dev, creates the metadata branch, and
// only logs a repair that fails.
func TestTurnStartEnsuresSetup(t *testing.T) {
	t.Parallel()
	ag, err := agent.Get(agent.AgentNameClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		manual     bool
		localDev   bool
		repairErr  error
		wantLogged bool
	}{
		{name: "manual", manual: true},
		{name: "manual local dev", manual: true, localDev: true},
		{name: "auto-commit", manual: false},
		{name: "repair fails", manual: true, repairErr: errors.New("read-only hooks dir"), wantLogged: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, _ := testEnv(t)
			if tc.manual {
				clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
				env, _ = manualEnv(t, clock)
			}
			var logs bytes.Buffer
			env.Log = slog.New(slog.NewTextHandler(&logs, nil))
			env.Settings.LocalDev = tc.localDev
			var calls []bool
			env.EnsureGitHooks = func(localDev bool) error {
				calls = append(calls, localDev)
				return tc.repairErr
			}
			in := TurnInput{Agent: ag, SessionID: "s1", Prompt: "hi"}
			if err := New(env).TurnStart(context.Background(), in); err != nil {
				t.Fatalf("TurnStart: %v", err)
			}
			if len(calls) != 1 || calls[0] != tc.localDev {
				t.Errorf("EnsureGitHooks calls = %v, want one with localDev %v", calls, tc.localDev)
			}
			if got := strings.Contains(logs.String(), "reinstall git hooks"); got != tc.wantLogged {
				t.Errorf("repair failure logged = %v, want %v; log:\n%s", got, tc.wantLogged, logs.String())
			}
			if tip, err := env.Repo.ReadRef(checkpoint.MetadataRef); err != nil || tip.IsZero() {
				t.Errorf("metadata branch not created: %v %v", tip, err)
			}
		})
	}
}

// Without a repairer (commands other than hooks) a turn start leaves the
// git hooks directory alone.
func TestTurnStartWithoutRepairer(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(t)
	ag, err := agent.Get(agent.AgentNameClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	if err := New(env).TurnStart(context.Background(), TurnInput{Agent: ag, SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	for _, hook := range []string{"pre-push", "post-commit", "prepare-commit-msg"} {
		if _, err := os.Stat(filepath.Join(env.Repo.CommonDir, "hooks", hook)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("git hook %s written without a repairer (stat: %v)", hook, err)
		}
	}
}
