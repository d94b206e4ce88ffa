package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/iostreams"
)

// storeCmdEnv is a test repository and a factory whose streams are buffers
// and whose working directory is the repository.
type storeCmdEnv struct {
	dir         string
	in          *bytes.Buffer
	out, errOut *bytes.Buffer
	f           *factory
}

func newStoreCmdEnv(t *testing.T) *storeCmdEnv {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	return newStoreCmdEnvIn(t, dir)
}

func newStoreCmdEnvIn(t *testing.T, dir string) *storeCmdEnv {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	f := &factory{
		IO:     ios,
		Getwd:  func() (string, error) { return dir, nil },
		Getenv: func(string) string { return "" },
		Now:    func() time.Time { return time.Date(2026, 6, 7, 12, 0, 0, 0, time.UTC) },
	}
	f.OpenRepo = repoOpener(f)
	return &storeCmdEnv{dir: dir, in: in, out: out, errOut: errOut, f: f}
}

// run runs entire with args and returns the exit code; the buffers are
// reset first.
func (e *storeCmdEnv) run(args ...string) exitCode {
	e.out.Reset()
	e.errOut.Reset()
	return run(args, e.f)
}

func (e *storeCmdEnv) putHide(t *testing.T, content string) hide.StoreEntry {
	t.Helper()
	repo, err := gitrepo.Open(e.dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	entry, err := hide.NewStore(repo).Put("fetch", "fetch", []byte(content), map[string]string{hide.MetaSessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	return entry
}

func TestHideCommands(t *testing.T) {
	t.Parallel()
	e := newStoreCmdEnv(t)
	if code := e.run("hide", "list"); code != exitOK || e.out.Len() != 0 || !strings.Contains(e.errOut.String(), "No hides") {
		t.Fatalf("empty list: %d %q %q", code, e.out, e.errOut)
	}
	content := strings.Repeat("a", hide.DefaultPageSize) + "tail with NEEDLE"
	h := e.putHide(t, content)

	if code := e.run("hide", "list"); code != exitOK || !strings.Contains(e.out.String(), h.ID) {
		t.Fatalf("list: %d %q", code, e.out)
	}
	if code := e.run("hide", "list", "--json"); code != exitOK {
		t.Fatal(code)
	}
	var entries []hide.StoreEntry
	if err := json.Unmarshal(e.out.Bytes(), &entries); err != nil || len(entries) != 1 || entries[0].SessionID != "s1" {
		t.Fatalf("list --json: %v %s", err, e.out)
	}
	if code := e.run("hide", "show", h.ID); code != exitOK || e.out.String() != content {
		t.Fatalf("show: %d (%d bytes)", code, e.out.Len())
	}
	if code := e.run("hide", "show", h.ID, "--page", "2"); code != exitOK ||
		!strings.HasPrefix(e.out.String(), "[HIDE id="+h.ID+" source=fetch page=2/2 bytes=16]\n") {
		t.Fatalf("show --page 2: %d %q", code, e.out)
	}
	if code := e.run("hide", "show", h.ID, "--page", "2", "--json"); code != exitOK || !strings.Contains(e.out.String(), `"content": "tail with NEEDLE"`) {
		t.Fatalf("show --json: %q", e.out)
	}
	if code := e.run("hide", "search", h.ID, "needle"); code != exitOK || !strings.Contains(e.out.String(), "page=2/2") {
		t.Fatalf("search: %d %q %q", code, e.out, e.errOut)
	}
	if code := e.run("hide", "search", h.ID, "needle", "--json"); code != exitOK || !strings.Contains(e.out.String(), `"found": true`) {
		t.Fatalf("search --json: %q", e.out)
	}

	bad := []struct {
		args []string
		msg  string
	}{
		{[]string{"hide", "show", "hide_nope"}, `unknown hide id "hide_nope" (see 'entire hide list')`},
		{[]string{"hide", "show", "."}, `invalid hide id "."`},
		{[]string{"hide", "show", "a/b"}, `invalid hide id "a/b"`},
		{[]string{"hide", "show", h.ID, "--page", "3"}, "hide " + h.ID + " has 2 page(s); page 3 does not exist"},
		{[]string{"hide", "search", h.ID, "absent"}, `no match for "absent" in hide ` + h.ID},
		{[]string{"hide", "delete", "hide_nope"}, `unknown hide id "hide_nope" (see 'entire hide list')`},
	}
	for _, b := range bad {
		if code := e.run(b.args...); code != exitError || e.errOut.String() != b.msg+"\n" || e.out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, want %q", b.args, code, e.errOut, b.msg)
		}
	}
	if code := e.run("hide", "show", h.ID, "--page", "0"); code != exitError {
		t.Fatalf("--page 0: %d", code)
	}
	if code := e.run("hide", "delete", h.ID); code != exitOK || !strings.Contains(e.errOut.String(), "Deleted hide") {
		t.Fatalf("delete: %d %q", code, e.errOut)
	}
	if code := e.run("hide", "show", h.ID); code != exitError {
		t.Fatal("deleted hide still shown")
	}
	gittest.Fsck(t, e.dir)
}

func TestHideNotARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := newStoreCmdEnvIn(t, dir)
	for _, args := range [][]string{{"hide", "list"}, {"note", "list"}, {"mcp"}} {
		if code := e.run(args...); code != exitError || e.errOut.String() != errNotRepository.Error()+"\n" {
			t.Errorf("%v: %d %q", args, code, e.errOut)
		}
	}
}

func TestHideFlagParsing(t *testing.T) {
	t.Parallel()
	e := newStoreCmdEnv(t)
	var gotVerb string
	var got hideOptions
	cmd := newHideCmd(e.f, func(_ context.Context, verb string, o *hideOptions) error {
		gotVerb, got = verb, *o
		return nil
	})
	cmd.SetArgs([]string{"show", "hide_x", "--page", "4", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if gotVerb != "show" || got.ID != "hide_x" || got.Page != 4 || !got.JSON {
		t.Fatalf("parsed %s %+v", gotVerb, got)
	}
	cmd.SetArgs([]string{"search", "hide_x", "two words"})
	if err := cmd.Execute(); err != nil || gotVerb != "search" || got.Query != "two words" {
		t.Fatalf("search parsed %s %+v %v", gotVerb, got, err)
	}
}
