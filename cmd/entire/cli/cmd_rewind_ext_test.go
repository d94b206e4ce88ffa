package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/cli"
	"github.com/entirecli/entire/cmd/entire/e2etest"
)

func TestRewindInteractiveAccessible(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.TurnWith("first turn", map[string]string{"a.txt": "a1\n"}, nil)
	r.TurnWith("second turn", map[string]string{"a.txt": "a2\n", "b.txt": "b\n"}, nil)
	f, out, errOut := cli.TestFactory(r.Dir, map[string]string{"ACCESSIBLE": "1"})
	f.IO.In = &e2etest.LineReader{Lines: []string{"2", "y"}}
	f.IO.SetStdinTTY(true)
	f.IO.SetStderrTTY(true)
	if code := cli.Run([]string{"rewind"}, f); code != cli.ExitOK {
		t.Fatalf("interactive rewind exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Select a checkpoint to restore", "1.         (", "Second turn", "3. Cancel", "Warning: The following files will be DELETED:", "  b.txt", "Reset to ", "Rewound to "} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("interactive output lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.HasPrefix(out.String(), "Restored files from shadow commit ") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("stdout %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "a.txt")); string(b) != "a1\n" {
		t.Errorf("a.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "b.txt")); err == nil {
		t.Error("b.txt not deleted")
	}
	// Cancel changes nothing.
	before := e2etest.Snapshot(t, r.Dir)
	f, _, errOut = cli.TestFactory(r.Dir, map[string]string{"ACCESSIBLE": "1"})
	f.IO.In = &e2etest.LineReader{Lines: []string{"4"}}
	f.IO.SetStdinTTY(true)
	f.IO.SetStderrTTY(true)
	if code := cli.Run([]string{"rewind"}, f); code != cli.ExitOK {
		t.Fatalf("cancel exit %d: %s", code, errOut)
	}
	if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("cancel changed files:\n%s", d)
	}
}
