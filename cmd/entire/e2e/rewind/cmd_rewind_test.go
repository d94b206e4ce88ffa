package rewind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/testtier"
)

// matrixRepo plays a five-turn session whose turns make every kind of
// change, and returns the work tree and transcript after each turn.
func matrixRepo(t *testing.T) (*e2etest.SessionRepo, []e2etest.TreeState, []string) {
	r := e2etest.NewSessionRepo(t)
	r.Sh(`printf 'one\n' > mod.txt; printf 'bye\n' > del.txt; printf 'old name\n' > ren_old.txt
printf '#!/bin/sh\necho hi\n' > run.sh; mkdir -p dir/deep; printf a > dir/a.txt; printf b > dir/deep/b.txt
printf '\000\001\002binary' > bin.dat; ln -s README.md link; printf 'build/\n' > .gitignore
mkdir -p build; printf 'ignored\n' > build/out.log
git add -A; git commit -q -m 'project files'
printf 'mine\n' > notes.txt`)
	r.Hook("session-start", map[string]any{"source": "startup"})
	var states []e2etest.TreeState
	var transcripts []string
	record := func() {
		states = append(states, e2etest.Snapshot(t, r.Dir))
		b, _ := os.ReadFile(r.Transcript)
		transcripts = append(transcripts, string(b))
	}
	r.TurnWith("turn one: modify and add", map[string]string{"mod.txt": "two\n", "new.txt": "new\n"}, nil)
	record()
	r.TurnWith("turn two: delete, rename, bash file", map[string]string{"log.txt": "2\n"}, func() {
		r.Sh(`rm del.txt; mv ren_old.txt ren_new.txt; printf 'from bash\n' > bash_made.txt`)
	})
	record()
	r.TurnWith("turn three: exec bit, symlink, binary", map[string]string{"log.txt": "3\n"}, func() {
		r.Sh(`chmod +x run.sh; ln -s mod.txt ln_new; printf '\000\377\376more binary' > bin.dat`)
	})
	record()
	r.TurnWith("turn four: new dir, removed dir", map[string]string{"newdir/sub/x.txt": "x\n"}, func() {
		r.Sh(`rm -r dir`)
	})
	record()
	r.TurnWith("turn five: more edits", map[string]string{"mod.txt": "three\n", "new.txt": "newer\n"}, func() {
		r.Sh(`rm link; ln -s mod.txt link; printf 'also ignored\n' > build/out2.log; rm notes.txt`)
	})
	record()
	return r, states, transcripts
}

func TestRewindKeepsOtherSessionsWork(t *testing.T) {
	t.Parallel()
	r, states, _ := matrixRepo(t)
	pts := r.Points()
	r2 := *r
	r2.SessionID, r2.Transcript, r2.Turn = "sess-2", filepath.Join(filepath.Dir(r.Transcript), "sess-2.jsonl"), 10
	r2.TurnWith("second session", map[string]string{"other.txt": "other\n", "README.md": "changed by two\n"}, nil)
	before := e2etest.Snapshot(t, r.Dir)
	// The quick tier rewinds to turns 1 and 3; the torture tier to each.
	for k := 1; k <= 4; k += testtier.Count(2, 1) {
		p := e2etest.PointOfTurn(t, pts, k)
		if _, errOut, code := r.Entire("rewind", "--to", p.ID); code != 0 {
			t.Fatalf("rewind to turn %d: %s", k, errOut)
		}
		want := e2etest.TreeState{}
		for p, v := range states[k-1] {
			want[p] = v
		}
		want["other.txt"], want["README.md"] = "file:other\n", "file:changed by two\n"
		if d := e2etest.DiffStates(want, e2etest.Snapshot(t, r.Dir)); d != "" {
			t.Errorf("rewind to turn %d with a second session:\n%s", k, d)
		}
		if _, errOut, code := r.Entire("rewind", "--undo"); code != 0 {
			t.Fatalf("undo: %s", errOut)
		}
		if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
			t.Errorf("undo with a second session:\n%s", d)
		}
	}
	// A second session editing a file of the first one blocks the rewind.
	r2.TurnWith("second session edits mod.txt", map[string]string{"mod.txt": "two's edit\n"}, nil)
	before = e2etest.Snapshot(t, r.Dir)
	_, errOut, code := r.Entire("rewind", "--to", e2etest.PointOfTurn(t, pts, 1).ID)
	if code != 1 || !strings.Contains(errOut, "another session") || !strings.Contains(errOut, "mod.txt") {
		t.Errorf("conflicting rewind: %d %s", code, errOut)
	}
	if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("refused rewind changed files:\n%s", d)
	}
}

func TestRewindDryRunAndLogsOnly(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.TurnWith("first turn", map[string]string{"a.txt": "a\n"}, nil)
	r.TurnWith("second turn", map[string]string{"a.txt": "a2\n", "b.txt": "b\n"}, func() { r.Sh("rm README.md") })
	pts := r.Points()
	before := e2etest.Snapshot(t, r.Dir)
	out, _, code := r.Entire("rewind", "--to", pts[1].ID, "--dry-run")
	for _, want := range []string{"Would rewind to " + pts[1].ID[:7], "modified: a.txt", "deleted:  b.txt", "added:    README.md", "Would restore the transcript"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q: %d\n%s", want, code, out)
		}
	}
	if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("dry run changed files:\n%s", d)
	}
	if undo := e2etest.UndoPoints(t, r.Dir); len(undo) != 0 {
		t.Errorf("dry run recorded an undo point: %v", undo)
	}

	// Commit through the hooks, then restore the committed logs.
	gittest.Git(t, r.Dir, "add", "-A")
	if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "the work").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v %s", err, out)
	}
	pts = r.Points()
	if len(pts) != 1 || !pts[0].IsLogsOnly || len(pts[0].Condensed) != 12 {
		t.Fatalf("points after commit: %+v", pts)
	}
	live, _ := os.ReadFile(r.Transcript)
	os.Remove(r.Transcript)
	out, errOut, code := r.Entire("rewind", "--to", pts[0].ID, "--logs-only")
	if code != 0 || out != "" || !strings.Contains(errOut, "Restored session logs.") || !strings.Contains(errOut, "claude -r sess-1") {
		t.Fatalf("logs-only: %d %q %s", code, out, errOut)
	}
	if got, _ := os.ReadFile(r.Transcript); string(got) != string(live) {
		t.Errorf("logs-only restored %d bytes, want %d", len(got), len(live))
	}
	// Its undo takes the transcript back (here: there was none) and
	// leaves the work tree, which it never touched, as it is now.
	gittest.WriteFile(t, r.Dir, "a.txt", "edited after the logs-only rewind\n")
	r.MustEntire("rewind", "--undo")
	if _, err := os.Stat(r.Transcript); !os.IsNotExist(err) {
		t.Errorf("the undo of a logs-only rewind kept the restored transcript: %v", err)
	}
	if got := readFileT(t, filepath.Join(r.Dir, "a.txt")); got != "edited after the logs-only rewind\n" {
		t.Errorf("the undo of a logs-only rewind changed a.txt to %q", got)
	}
	if _, errOut, code := r.Entire("rewind", "--to", pts[0].ID, "--logs-only"); code != 0 {
		t.Fatalf("logs-only again: %d %s", code, errOut)
	}
	gittest.WriteFile(t, r.Dir, "a.txt", "a2\n")
	// The note is SPEC 6.4's, then names the commands of a full restore,
	// and they work.
	note := "Note: Working directory unchanged. Use interactive mode for full checkout.\nOr run one of:\n" +
		"  entire rewind --to " + pts[0].ID + " --reset   # reset the branch to this commit (destructive)\n" +
		"  git checkout " + pts[0].ID + "   # detached HEAD, for viewing\n"
	if !strings.Contains(errOut, note) {
		t.Errorf("logs-only note:\n%s\nwant:\n%s", errOut, note)
	}
	if _, errOut, code := r.Entire("rewind", "--to", pts[0].ID, "--reset"); code != 0 || !strings.Contains(errOut, "Reset branch to "+pts[0].ID[:7]) {
		t.Errorf("the note's reset command: %d %s", code, errOut)
	}
	if _, errOut, code := r.Entire("rewind", "--to", pts[0].ID); code != 0 || !strings.Contains(errOut, note) {
		t.Errorf("--to a committed point without --logs-only: %d\n%s", code, errOut)
	}
	// --logs-only on a temporary point fails; --reset on one too.
	r.TurnWith("third turn", map[string]string{"c.txt": "c\n"}, nil)
	tmp := e2etest.PointOfMessage(t, r.Points(), "third turn")
	for _, flag := range []string{"--logs-only", "--reset"} {
		if _, errOut, code := r.Entire("rewind", "--to", tmp.ID, flag); code != 1 || !strings.Contains(errOut, "temporary") {
			t.Errorf("%s on a temporary point: %d %s", flag, code, errOut)
		}
	}
}

func TestRewindNoTerminal(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	_, errOut, code := r.Entire("rewind")
	if code != 1 || !strings.Contains(errOut, "--list") {
		t.Errorf("interactive without a terminal: %d %s", code, errOut)
	}
	if out, _, code := r.Entire("rewind", "--list"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("empty list: %d %q", code, out)
	}
}

func TestSessionContinuesAfterRewind(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.TurnWith("first turn", map[string]string{"a.txt": "a1\n"}, nil)
	r.TurnWith("second turn", map[string]string{"a.txt": "a2\n"}, nil)
	first := e2etest.PointOfMessage(t, r.Points(), "first turn")
	out, errOut, code := r.Entire("rewind", "--to", first.ID)
	if code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	// SPEC 6.3's report: each restored file on stderr, the commit on stdout.
	if strings.Count(errOut, "  Restored: a.txt\n") != 1 || out != "Restored files from shadow commit "+first.ID[:7]+"\n" {
		t.Errorf("rewind report: stdout %q, stderr:\n%s", out, errOut)
	}
	r.TurnWith("third turn", map[string]string{"c.txt": "c\n"}, nil)
	shadow := gittest.Git(t, r.Dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/entire/*-*")
	if log := gittest.Git(t, r.Dir, "log", "--format=%s", shadow); log != "Third turn\nRewind to "+first.ID[:7]+": First turn\nSecond turn\nFirst turn" {
		t.Errorf("shadow log:\n%s", log)
	}
	if p := gittest.Git(t, r.Dir, "show", shadow+":.entire/metadata/sess-1/prompt.txt"); p != "first turn\n\n---\n\nthird turn" {
		t.Errorf("prompt.txt after rewind and a new turn: %q", p)
	}
	stored := gittest.Git(t, r.Dir, "show", shadow+":.entire/metadata/sess-1/full.jsonl")
	live, _ := os.ReadFile(r.Transcript)
	if stored+"\n" != string(live) || strings.Contains(stored, "second turn") {
		t.Errorf("stored transcript after rewind and a new turn differs from the live one")
	}
	if files := gittest.Git(t, r.Dir, "ls-tree", "-r", "--name-only", shadow); strings.Contains(files, "b.txt") || !strings.Contains(files, "c.txt") {
		t.Errorf("shadow tree:\n%s", files)
	}
}

func TestRewindResetToCommittedPoint(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	commit := func(msg string) string {
		gittest.Git(t, r.Dir, "add", "-A")
		if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", msg).CombinedOutput(); err != nil {
			t.Fatalf("commit: %v %s", err, out)
		}
		return gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	}
	r.TurnWith("first turn", map[string]string{"a.txt": "a1\n"}, nil)
	first := commit("first")
	r.TurnWith("second turn", map[string]string{"a.txt": "a2\n"}, nil)
	second := commit("second")
	gittest.WriteFile(t, r.Dir, "README.md", "uncommitted\n")
	_, errOut, code := r.Entire("rewind", "--to", first[:9], "--reset")
	if code != 0 || !strings.Contains(errOut, "Reset branch to "+first[:7]) || !strings.Contains(errOut, "git reset --hard "+second[:7]) {
		t.Fatalf("reset: %d %s", code, errOut)
	}
	if head := gittest.Git(t, r.Dir, "rev-parse", "HEAD"); head != first {
		t.Errorf("HEAD %s, want %s", head, first)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "a.txt")); string(b) != "a1\n" {
		t.Errorf("a.txt = %q", b)
	}
	// The hint's two commands bring everything back.
	gittest.Git(t, r.Dir, "reset", "-q", "--hard", second)
	if _, errOut, code := r.Entire("rewind", "--undo"); code != 0 {
		t.Fatalf("undo: %s", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "README.md")); string(b) != "uncommitted\n" {
		t.Errorf("README.md after undo = %q", b)
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
