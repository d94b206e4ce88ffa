package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/iostreams"
)

// testFactory returns a factory rooted at dir with buffer streams.
func testFactory(dir string, env map[string]string) (*factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := iostreams.Test()
	f := &factory{
		IO:     ios,
		Getwd:  func() (string, error) { return dir, nil },
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
	f.OpenRepo = repoOpener(f)
	return f, out, errOut
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	f, out, _ := testFactory(t.TempDir(), nil)
	if code := run([]string{"version"}, f); code != exitOK {
		t.Fatalf("version exit %d", code)
	}
	if !strings.HasPrefix(out.String(), "Entire CLI dev (dev)\nGo version: go") || !strings.Contains(out.String(), "OS/Arch: ") {
		t.Errorf("version output %q", out)
	}
	f, out, _ = testFactory(t.TempDir(), nil)
	if code := run([]string{"help", "--tree"}, f); code != exitOK || !strings.Contains(out.String(), "version - Show build information") {
		t.Errorf("help --tree: %d %q", code, out)
	}
}
