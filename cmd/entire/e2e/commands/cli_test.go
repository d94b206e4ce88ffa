package commands

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	_, stderr, code := e2etest.RunEntire(t, t.TempDir(), nil, "", "--no-such-flag")
	if code != 1 || !strings.Contains(stderr, "Error: Invalid usage: unknown flag: --no-such-flag") {
		t.Errorf("unknown flag: %d %q", code, stderr)
	}
	_, stderr, code = e2etest.RunEntire(t, t.TempDir(), nil, "", "no-such-command")
	if code != 1 || !strings.Contains(stderr, "Invalid usage: unknown command") {
		t.Errorf("unknown command: %d %q", code, stderr)
	}
	if _, _, code := e2etest.RunEntire(t, t.TempDir(), nil, "", "completion", "bash"); code != 0 {
		t.Errorf("completion exit %d", code)
	}
}
