package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/notes"
)

func TestNoteCommands(t *testing.T) {
	t.Parallel()
	e := newStoreCmdEnv(t)
	steps := []struct {
		args   []string
		code   exitCode
		out    string // exact stdout, or "" to skip
		errOut string // substring of stderr
	}{
		{[]string{"note", "list"}, exitOK, "", "No notes stored for claude-code."},
		{[]string{"note", "save", "k8s", "homelab cluster"}, exitOK, "", "Saved note k8s for claude-code."},
		{[]string{"note", "show", "k8s"}, exitOK, "homelab cluster\n", ""},
		{[]string{"note", "show", "k8s", "--agent", "gemini"}, exitError, "", `no note "k8s" for gemini`},
		{[]string{"note", "save", "Bad", "x"}, exitError, "", `invalid note key: "Bad"`},
		{[]string{"note", "save", "big", strings.Repeat("x", 4097)}, exitError, "", "note content exceeds size cap: 4097 > 4096 bytes"},
		{[]string{"note", "pin", "k8s"}, exitOK, "", "Pinned note k8s"},
		{[]string{"note", "pin", "nope"}, exitError, "", `no note "nope" for claude-code`},
		{[]string{"note", "unpin", "k8s"}, exitOK, "", "Unpinned note k8s"},
		{[]string{"note", "delete", "nope"}, exitError, "", `no note "nope"`},
		{[]string{"note", "delete", "k8s"}, exitOK, "", "Deleted note k8s"},
		{[]string{"note", "show", "k8s"}, exitError, "", `no note "k8s"`},
		{[]string{"note", "save", "k"}, exitError, "", "accepts 2 arg(s), received 1"},
	}
	for _, s := range steps {
		code := e.run(s.args...)
		if code != s.code || (s.out != "" && e.out.String() != s.out) || !strings.Contains(e.errOut.String(), s.errOut) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", s.args, code, e.out, e.errOut)
		}
		if code == exitError && !strings.Contains(e.errOut.String(), "Usage") && strings.Count(e.errOut.String(), "\n") != 1 {
			t.Fatalf("%v: error is not one line: %q", s.args, e.errOut)
		}
	}
	gittest.Fsck(t, e.dir)
	if log := gittest.Git(t, e.dir, "log", "--format=%s", "entire/notes/v1"); !strings.HasPrefix(log, "notes(claude-code): delete k8s") {
		t.Fatalf("git log entire/notes/v1:\n%s", log)
	}
}

func TestNoteCommandsJSONAndStdin(t *testing.T) {
	t.Parallel()
	e := newStoreCmdEnv(t)
	e.in.WriteString("from stdin\nsecond line\n")
	if code := e.run("note", "save", "piped", "-", "--json", "--agent", "gemini"); code != exitOK || !strings.Contains(e.out.String(), `"created": true`) {
		t.Fatalf("save -: %d %q %q", code, e.out, e.errOut)
	}
	if code := e.run("note", "show", "piped", "--json", "--agent", "gemini"); code != exitOK {
		t.Fatal(code)
	}
	var n notes.Note
	if err := json.Unmarshal(e.out.Bytes(), &n); err != nil || n.Content != "from stdin\nsecond line\n" || n.Preview != "from stdin" {
		t.Fatalf("show --json: %v %+v", err, n)
	}
	if code := e.run("note", "list", "--json"); code != exitOK || strings.TrimSpace(e.out.String()) != "[]" {
		t.Fatalf("claude-code list --json: %q", e.out)
	}
	if code := e.run("note", "list", "--agent", "gemini"); code != exitOK || !strings.Contains(e.out.String(), "piped") {
		t.Fatalf("gemini list: %q", e.out)
	}
	if code := e.run("note", "list", "--agent", "Bad/Agent"); code != exitError || !strings.Contains(e.errOut.String(), "invalid agent name") {
		t.Fatalf("bad agent: %d %q", code, e.errOut)
	}
}

func TestNoteFlagParsing(t *testing.T) {
	t.Parallel()
	e := newStoreCmdEnv(t)
	var verb string
	var got noteOptions
	cmd := newNoteCmd(e.f, func(_ context.Context, v string, o *noteOptions) error {
		verb, got = v, *o
		return nil
	})
	cmd.SetArgs([]string{"save", "--agent", "gemini", "key", "some content", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if verb != "save" || got.Agent != "gemini" || got.Key != "key" || got.Content != "some content" || !got.JSON {
		t.Fatalf("parsed %s %+v", verb, got)
	}
}
