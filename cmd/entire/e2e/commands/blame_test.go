package commands

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// who is the expected author of a line: a session's turn, or the person
// (session ""); mixed marks the person's rewrite of a turn's line.
type who struct {
	session string
	turn    int
	mixed   bool
}

var person = who{}

// scriptFile is a file of the scripted history and, line by line, who
// wrote it.
type scriptFile struct {
	lines []string
	by    []who
}

func (f *scriptFile) text() string {
	if len(f.lines) == 0 {
		return ""
	}
	return strings.Join(f.lines, "\n") + "\n"
}

// insert puts lines at index i (0-based), written by w.
func (f *scriptFile) insert(i int, w who, ls ...string) {
	for k, l := range ls {
		f.lines = append(f.lines[:i+k], append([]string{l}, f.lines[i+k:]...)...)
		f.by = append(f.by[:i+k], append([]who{w}, f.by[i+k:]...)...)
	}
}

func (f *scriptFile) add(w who, ls ...string) { f.insert(len(f.lines), w, ls...) }

// blameJSON runs entire blame --json and returns its lines.
func blameJSON(t *testing.T, r *e2etest.SessionRepo, args ...string) []map[string]any {
	t.Helper()
	out := r.MustEntire(append([]string{"blame", "--json"}, args...)...)
	var res []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("blame --json line %q: %v", l, err)
		}
		res = append(res, m)
	}
	return res
}

// checkBlame compares entire blame's answer for path (at rev, "" for the
// work tree) with the script, line by line.
func checkBlame(t *testing.T, r *e2etest.SessionRepo, when, path, rev string, f *scriptFile) {
	t.Helper()
	args := []string{path}
	if rev != "" {
		args = append(args, rev)
	}
	got := blameJSON(t, r, args...)
	if len(got) != len(f.lines) {
		t.Fatalf("%s: blame %s: %d lines, want %d", when, path, len(got), len(f.lines))
	}
	for i, g := range got {
		w := f.by[i]
		kind, _ := g["kind"].(string)
		sess, _ := g["session_id"].(string)
		turn, _ := g["turn"].(float64)
		want := "human"
		if w.session != "" {
			want = "agent"
			if w.mixed {
				want = "mixed"
			}
		}
		if int(g["line"].(float64)) != i+1 || g["text"] != f.lines[i] {
			t.Errorf("%s: %s:%d is %v %q, want %q", when, path, i+1, g["line"], g["text"], f.lines[i])
		}
		if kind != want || (w.session != "" && (sess != w.session || int(turn) != w.turn)) {
			t.Errorf("%s: %s:%d %q: %s %s #%v, want %s %s #%d", when, path, i+1, f.lines[i], kind, sess, g["turn"], want, w.session, w.turn)
		}
		if w.session != "" && ((rev != "" && g["checkpoint_id"] == nil) || g["prompt"] == nil || g["agent"] == nil) {
			t.Errorf("%s: %s:%d lacks checkpoint, prompt or agent: %v", when, path, i+1, g)
		}
	}
}

// TestBlameFollowsAScriptedHistory plays two sessions with the person's
// edits between their turns, commits, amends, rebases interactively
// (squashing two commits) and squash-merges, and checks after each step
// that entire blame attributes every line of every file to the session
// and turn, or the person, the script says, in both checkpoint layouts.
func TestBlameFollowsAScriptedHistory(t *testing.T) {
	for _, layout := range []string{settings.CheckpointsGitBranch, settings.CheckpointsGitRefs} {
		t.Run(layout, func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			r.UseLayout(layout)
			playBlameScript(t, r)
		})
	}
}

func playBlameScript(t *testing.T, r *e2etest.SessionRepo) {
	a := r // session sess-1
	b := r.WithSession("sess-2")
	A := func(turn int) who { return who{session: "sess-1", turn: turn} }
	B := func(turn int) who { return who{session: "sess-2", turn: turn} }
	write := func(path string, f *scriptFile) { gittest.WriteFile(t, r.Dir, path, f.text()) }
	files := map[string]*scriptFile{"app.go": {}, "lib.go": {}}
	app, lib := files["app.go"], files["lib.go"]
	r.MustGit("checkout", "-q", "-b", "feature")

	// Session A, turn 1: writes app.go.
	app.add(A(1), "package app", "func one() int { return 1 }", "func two() int { return 2 }", "// end of one and two")
	a.PlayTurn("write app.go with one and two", map[string]string{"app.go": app.text()})
	checkBlame(t, r, "after A's first turn", "app.go", "", app)

	// The person rewrites an agent line and adds one of their own.
	app.lines[2], app.by[2] = "func two() int { return 2 + 0 }", who{session: "sess-1", turn: 1, mixed: true}
	app.add(person, "// reviewed by a person")
	write("app.go", app)

	// Session A, turn 2: extends app.go.
	app.add(A(2), "func three() int { return 3 }", "func four() int { return 4 }")
	a.PlayTurn("add three and four", map[string]string{"app.go": app.text()})

	// Session B, turn 1: writes lib.go and puts a line at the top of app.go.
	lib.add(B(1), "package app", "func lib() string { return \"lib\" }", "// lib ends")
	app.insert(0, B(1), "// Code generated together. DO NOT EDIT lightly.")
	b.PlayTurn("write lib.go and head app.go", map[string]string{"lib.go": lib.text(), "app.go": app.text()})

	// The person adds to lib.go after the last turn, and commits both.
	lib.insert(2, person, "func helper() {}")
	write("lib.go", lib)
	r.MustGit("add", "app.go", "lib.go")
	r.MustGit("commit", "-q", "-m", "Add app and lib")
	for p, f := range files {
		checkBlame(t, r, "after the first commit", p, "HEAD", f)
	}

	// The person amends the commit with one more line.
	app.add(person, "// amended")
	write("app.go", app)
	r.MustGit("commit", "-q", "-a", "--amend", "--no-edit")
	checkBlame(t, r, "after the amend", "app.go", "HEAD", app)

	// Session A, turn 3 (its third prompt): extends lib.go; committed.
	lib.add(A(3), "func libToo() string { return lib() }")
	a.PlayTurn("extend lib.go", map[string]string{"lib.go": lib.text()})
	checkBlame(t, r, "before the second commit", "lib.go", "", lib)
	r.MustGit("commit", "-q", "-a", "-m", "Extend lib")
	for p, f := range files {
		checkBlame(t, r, "after the second commit", p, "HEAD", f)
	}

	// Meanwhile main moves on; the feature branch is rebased onto it,
	// squashing its two commits into one.
	r.MustGit("checkout", "-q", "main")
	readme := filepath.Join(r.Dir, "NOTES.md")
	if err := os.WriteFile(readme, []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.MustGit("add", "NOTES.md")
	r.MustGit("commit", "-q", "-m", "Notes")
	r.MustGit("checkout", "-q", "feature")
	seq := rewriteEditor(t, `sed -i '2s/^pick/squash/' "$1"`)
	cmd := e2etest.GitCmd(t, r, "rebase", "-q", "-i", "main")
	cmd.Env = append(cmd.Env, "GIT_SEQUENCE_EDITOR="+seq, "GIT_EDITOR=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git rebase -i: %v\n%s", err, out)
	}
	if n := strings.TrimSpace(r.MustGit("rev-list", "--count", "main..feature")); n != "1" {
		t.Fatalf("rebase left %s commits", n)
	}
	for p, f := range files {
		checkBlame(t, r, "after the interactive rebase", p, "HEAD", f)
	}

	// The feature is squash-merged into main.
	r.MustGit("checkout", "-q", "main")
	r.MustGit("merge", "-q", "--squash", "feature")
	cmd = e2etest.GitCmd(t, r, "commit", "-q", "--no-edit")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit of the squash merge: %v\n%s", err, out)
	}
	for p, f := range files {
		checkBlame(t, r, "after the squash merge", p, "HEAD", f)
	}
	notes := &scriptFile{}
	notes.add(person, "notes")
	checkBlame(t, r, "after the squash merge", "NOTES.md", "HEAD", notes)

	checkGitAINote(t, r, files)

	// The text form names the session, the turn and the prompt.
	out := r.MustEntire("blame", "--no-pager", "-L", "2,2", "app.go")
	if !strings.Contains(out, "sess-1") || !strings.Contains(out, "#1") || !strings.Contains(out, "write app.go with one") {
		t.Errorf("blame -L 2,2 app.go:\n%s", out)
	}
}

// rewriteEditor writes an executable editor script and returns its path.
func rewriteEditor(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWhyTellsTheTurnThatWroteALine asks entire why of an agent's line and
// of the person's after a commit: the prompt, the answer, the tool call,
// the turn's diff and the way back.
func TestWhyTellsTheTurnThatWroteALine(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("write calc.go", map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n"})
	r.PlayTurn("add Sub to calc.go", map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\nfunc Sub(a, b int) int { return a - b }\n"})
	out := r.MustEntire("why", "--no-pager", "calc.go:4")
	for _, want := range []string{"func Sub", "turn 2", "add Sub to calc.go", "Done with add Sub to calc.go", "Write", "+func Sub(a, b int) int { return a - b }", "not committed yet", "entire rewind --to"} {
		if !strings.Contains(out, want) {
			t.Errorf("why calc.go:4 before the commit lacks %q:\n%s", want, out)
		}
	}
	r.MustGit("add", "calc.go")
	r.MustGit("commit", "-q", "-m", "calc")
	gittest.WriteFile(t, r.Dir, "calc.go", "// by hand\npackage calc\n\nfunc Add(a, b int) int { return a + b }\nfunc Sub(a, b int) int { return a - b }\n")
	out = r.MustEntire("why", "--no-pager", "calc.go:5")
	for _, want := range []string{"Checkpoint: " + e2etest.CheckpointAt(t, r.Dir, "HEAD"), "turn 2", "add Sub to calc.go", "Done with add Sub", "+func Sub", "entire resume main", "entire rewind --to"} {
		if !strings.Contains(out, want) {
			t.Errorf("why calc.go:5 after the commit lacks %q:\n%s", want, out)
		}
	}
	if out := r.MustEntire("why", "--no-pager", "calc.go:1"); !strings.Contains(out, "person") {
		t.Errorf("why calc.go:1 (the person's line):\n%s", out)
	}
	for _, bad := range []string{"calc.go", "calc.go:x", "calc.go:0", "../x:1", "calc.go:99"} {
		if _, errOut, code := r.Entire("why", bad); code == 0 || strings.Contains(errOut, "goroutine") || (!strings.Contains(errOut, "Error: ") && strings.Count(strings.TrimSpace(errOut), "\n") > 0) {
			t.Errorf("why %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
}

// checkGitAINote exports the squash merge's attribution as a git-ai note
// and checks it against the script: each file's agent lines (not the
// person's, not mixed) under its session's key, and the metadata.
func checkGitAINote(t *testing.T, r *e2etest.SessionRepo, files map[string]*scriptFile) {
	t.Helper()
	out := r.MustEntire("blame", "--export-git-ai", "HEAD~1..HEAD")
	if !strings.Contains(out, "Wrote 1 git-ai note") {
		t.Fatalf("export: %s", out)
	}
	note := r.MustGit("notes", "--ref=ai", "show", "HEAD")
	attest, js, ok := strings.Cut(note, "\n---\n")
	if !ok {
		t.Fatalf("note without divider:\n%s", note)
	}
	key := func(session string) string {
		sum := sha256.Sum256([]byte("claude-code:" + session))
		return hex.EncodeToString(sum[:])[:16]
	}
	var want strings.Builder
	for _, p := range []string{"app.go", "lib.go"} {
		f := files[p]
		bySession := map[string][]int{}
		var order []string
		for i, w := range f.by {
			if w.session == "" || w.mixed {
				continue
			}
			if bySession[w.session] == nil {
				order = append(order, w.session)
			}
			bySession[w.session] = append(bySession[w.session], i+1)
		}
		want.WriteString(p + "\n")
		for _, s := range order {
			var parts []string
			ns := bySession[s]
			for i := 0; i < len(ns); {
				j := i
				for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
					j++
				}
				if i == j {
					parts = append(parts, strconv.Itoa(ns[i]))
				} else {
					parts = append(parts, fmt.Sprintf("%d-%d", ns[i], ns[j]))
				}
				i = j + 1
			}
			want.WriteString("  " + key(s) + " " + strings.Join(parts, ",") + "\n")
		}
	}
	if attest+"\n" != want.String() {
		t.Errorf("attestations:\n%s\nwant:\n%s", attest, want.String())
	}
	var meta struct {
		Schema  string `json:"schema_version"`
		Base    string `json:"base_commit_sha"`
		Prompts map[string]struct {
			AgentID  struct{ Tool, ID, Model string } `json:"agent_id"`
			Accepted int                              `json:"accepted_lines"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal([]byte(js), &meta); err != nil {
		t.Fatalf("note metadata: %v\n%s", err, js)
	}
	if meta.Schema != "authorship/3.0.0" || meta.Base != strings.TrimSpace(r.MustGit("rev-parse", "HEAD")) ||
		meta.Prompts[key("sess-1")].AgentID.ID != "sess-1" || meta.Prompts[key("sess-2")].AgentID.Tool != "claude-code" {
		t.Errorf("note metadata: %+v", meta)
	}
	// A note git-ai wrote itself is kept.
	r.MustGit("notes", "--ref=ai", "add", "-f", "-m", "theirs", "HEAD")
	if out := r.MustEntire("blame", "--export-git-ai", "HEAD"); !strings.Contains(out, "1 note(s) git-ai wrote kept") {
		t.Errorf("export over git-ai's note: %s", out)
	}
	if got := strings.TrimSpace(r.MustGit("notes", "--ref=ai", "show", "HEAD")); got != "theirs" {
		t.Errorf("git-ai's note replaced: %q", got)
	}
}
