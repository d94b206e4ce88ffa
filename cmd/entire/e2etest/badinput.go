package e2etest

import (
	"strings"
	"testing"
)

// StartTurnDisabled plays a turn's hooks against a disabled repository.
func (r *SessionRepo) StartTurnDisabled(t *testing.T) {
	t.Helper()
	for _, verb := range []string{"session-start", "user-prompt-submit", "stop"} {
		out, errOut, code := r.HookIn(r.Dir, verb, map[string]any{"prompt": "ignored"})
		if code != 0 || out != "" || errOut != "" {
			t.Errorf("disabled claude %s: %d %q %q", verb, code, out, errOut)
		}
	}
	for _, verb := range []string{"session-start", "before-agent", "after-agent"} {
		out, _, code := RunEntire(t, r.Dir, r.Env, `{"session_id":"g1","transcript_path":"/nonexistent"}`, "hooks", "gemini", verb)
		if code != 0 || strings.TrimSpace(out) != "{}" {
			t.Errorf("disabled gemini %s: %d %q", verb, code, out)
		}
	}
}
