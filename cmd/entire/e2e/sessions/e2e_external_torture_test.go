//go:build torture

// The external agent's whole sessions run in the torture tier (CI runs it
// too): each hook runs the fake program, the test binary, several times.

package sessions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExternalAgentFullSession drives a whole session of an external
// agent through its program: enable, turns, rewind and undo (the program
// gets the rewound transcript back), commit, explain, and resume in a
// fresh clone.
func TestExternalAgentFullSession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	s := e2etest.NewAcmeSession(t, r, "acme-1")

	out := r.MustEntire("enable", "--agent", "acme")
	for _, want := range []string{"Agent: Acme Agent", "Installed 5 hooks", "external agent"} {
		if !strings.Contains(out, want) {
			t.Errorf("enable lacks %q:\n%s", want, out)
		}
	}
	if local := readFile(t, filepath.Join(r.Dir, ".entire", "settings.local.json")); !strings.Contains(local, `"external_agents": true`) {
		t.Errorf("settings.local.json does not allow external agents:\n%s", local)
	}
	if hooks := readFile(t, filepath.Join(r.Dir, ".acme", "hooks.json")); !strings.Contains(hooks, "entire hooks acme stop") {
		t.Errorf("the program did not install its hooks:\n%s", hooks)
	}
	if st := r.MustEntire("status"); !strings.Contains(st, "External agent acme: Acme Agent") {
		t.Errorf("status does not list the external agent:\n%s", st)
	}

	s.Append(`{"type":"meta"}`)
	s.MustHook("session-start", "")
	s.Turn("Turn one: make a", map[string]string{"a.txt": "one\n"}, "Wrote a.txt.")
	turnOne := readFile(t, s.Transcript)
	s.Turn("Turn two: change a, add b", map[string]string{"a.txt": "two\n", "b.txt": "bee\n"}, "Changed both.")
	e2etest.AwaitFinishers(t, r.Dir)

	pts := r.Points()
	p1 := e2etest.PointOfTurn(t, pts, 1)
	if _, errOut, code := r.Entire("rewind", "--to", p1.ID); code != 0 {
		t.Fatalf("rewind: %d %s", code, errOut)
	}
	if got := readFile(t, filepath.Join(r.Dir, "a.txt")); got != "one\n" {
		t.Errorf("a.txt after rewind = %q", got)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt survived the rewind: %v", err)
	}
	if got := readFile(t, s.Transcript); got != turnOne {
		t.Errorf("the program's transcript after rewind:\n%s\nwant\n%s", got, turnOne)
	}
	r.MustEntire("rewind", "--undo")
	if got := readFile(t, filepath.Join(r.Dir, "b.txt")); got != "bee\n" {
		t.Errorf("b.txt after undo = %q", got)
	}

	r.Commit("add a and b", nil, "a.txt", "b.txt")
	explain := r.MustEntire("explain", "--commit", "HEAD", "--no-pager")
	for _, want := range []string{"acme-1 (Acme Agent)", "Turn one: make a", "Tokens: 240"} {
		if !strings.Contains(explain, want) {
			t.Errorf("explain lacks %q:\n%s", want, explain)
		}
	}
	full := r.MustEntire("explain", "--commit", "HEAD", "--full", "--no-pager")
	for _, want := range []string{"[User] Turn two: change a, add b", "[Assistant] Changed both."} {
		if !strings.Contains(full, want) {
			t.Errorf("explain --full lacks %q:\n%s", want, full)
		}
	}

	remote := e2etest.Publish(t, r)
	clone := e2etest.SecondClone(t, remote, "feature", "entire/checkpoints/v1")
	if err := os.WriteFile(filepath.Join(clone, ".entire", "settings.local.json"), []byte(`{"external_agents": true}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home2 := t.TempDir()
	env := append(append([]string{}, r.Env...), "ACME_HOME="+home2)
	_, errOut, code := e2etest.RunEntire(t, clone, env, "", "resume", "feature")
	if code != 0 {
		t.Fatalf("resume in the clone: %d\n%s", code, errOut)
	}
	if got := readFile(t, filepath.Join(home2, "sessions", "acme-1.jsonl")); got != readFile(t, s.Transcript) {
		t.Errorf("resumed transcript:\n%s\nwant\n%s", got, readFile(t, s.Transcript))
	}
	if !strings.Contains(errOut, "acme --resume acme-1") {
		t.Errorf("resume does not give the program's command:\n%s", errOut)
	}

	r.MustEntire("disable", "--uninstall", "--force")
	if _, err := os.Stat(filepath.Join(r.Dir, ".acme", "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("the program's hooks survived uninstall: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(r.Dir, ".entire", "settings.local.json")); err == nil && strings.Contains(string(b), "external_agents") {
		t.Errorf("uninstall left external_agents:\n%s", b)
	}
}

// TestExternalAgentCapabilities: a program without transcript_analyzer
// and token_calculator still gets its turns recorded from the work tree,
// with no files or prompts from the transcript and no token figures
// (explain says so, never zeros); an analyzer naming files outside the
// repository gets none of them into the checkpoint.
func TestExternalAgentCapabilities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"bare", []string{"ACME_NO_ANALYZER=1", "ACME_NO_TOKENS=1"}},
		{"outside files", []string{"ACME_MISBEHAVE=extract-modified-files:escape"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			r.Env = append(r.Env, tc.env...)
			s := e2etest.NewAcmeSession(t, r, "acme-c")
			r.MustEntire("enable", "--agent", "acme")
			s.MustHook("session-start", "")
			s.Turn("Turn one: make a", map[string]string{"a.txt": "one\n"}, "Wrote a.txt.")
			e2etest.AwaitFinishers(t, r.Dir)
			r.Commit("add a", nil, "a.txt")
			cp := e2etest.CheckpointAt(t, r.Dir, "HEAD")
			if cp == "" {
				t.Fatal("no checkpoint")
			}
			meta := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(cp, "0/metadata.json"))
			files, _ := json.Marshal(meta["files_touched"])
			if string(files) != `["a.txt"]` {
				t.Errorf("files_touched %s, want [\"a.txt\"]", files)
			}
			explain := r.MustEntire("explain", "--commit", "HEAD", "--no-pager")
			if tc.name == "bare" {
				if _, has := meta["token_usage"]; has {
					t.Errorf("token usage recorded without token_calculator: %v", meta["token_usage"])
				}
				if !strings.Contains(explain, "Tokens: not recorded") {
					t.Errorf("explain:\n%s", explain)
				}
			} else if !strings.Contains(explain, "Tokens: 120") {
				t.Errorf("explain:\n%s", explain)
			}
		})
	}
}
