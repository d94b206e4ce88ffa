package hooks

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A git hook's failure reaches the person escaped: the error may quote a
// path, a ref or git's output, which must not put escape sequences on the
// terminal. The hook still lets git go on.
func TestGitHookFailureIsEscaped(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	getenv := func(string) string { return "" }
	var stderr bytes.Buffer
	env := Env{
		Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: getenv, Now: time.Now,
		OpenRepo: func() (*gitrepo.Repo, error) { return gitrepo.Open(dir, gitrepo.Options{Getenv: getenv}) },
	}
	missing := filepath.Join(t.TempDir(), "MSG\x1b[2J")
	if code := RunGitHook(context.Background(), env, "commit-msg", []string{missing}); code != 0 {
		t.Errorf("RunGitHook = %d, want 0", code)
	}
	out := stderr.String()
	if !strings.Contains(out, "[entire] commit-msg: read commit message") || !strings.Contains(out, `MSG\x1b[2J`) {
		t.Errorf("stderr = %q, want the failure with the path escaped", out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequence printed: %q", out)
	}
}
