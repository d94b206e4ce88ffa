package rewind

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A rewind changes only the paths a session changed (issue 13): the
// user's own edits between and after turns, to files no session touched,
// stay; a file both changed goes back to the point, the dry run says it
// overwrites the user's later edits, and undo gives the user's version
// back byte for byte. A file the agent changed with a shell command counts
// as the session's.
func TestRewindKeepsUserEdits(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Sh(`printf 'a0\n' > a.txt; printf 'b0\n' > b.txt; printf 'd0\n' > d.txt; git add -A; git commit -q -m files`)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.TurnWith("turn one: change a", map[string]string{"a.txt": "a1\n"}, nil)
	// Between the turns, by hand.
	r.Sh(`printf 'b by hand\n' > b.txt; printf 'untracked\n' > u.txt; printf 'a by hand\r\nno newline' > a.txt`)
	r.TurnWith("turn two: add c, shell edits d", map[string]string{"c.txt": "c\n"}, func() {
		r.Sh(`printf 'd from bash\n' > d.txt`)
	})
	// After the last turn, by hand: measured by the rewind itself.
	r.Sh(`printf 'v\n' > v.txt; printf 'd by hand\n' >> d.txt`)
	before := e2etest.Snapshot(t, r.Dir)
	first := e2etest.PointOfTurn(t, r.Points(), 1)

	out, errOut, code := r.Entire("rewind", "--to", first.ID, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: %d %s", code, errOut)
	}
	for _, want := range []string{
		"  modified: a.txt (overwrites your later edits)\n",
		"  deleted:  c.txt\n",
		"  modified: d.txt (overwrites your later edits)\n",
		"  kept:     b.txt (your edit; no session changed it)\n",
		"  kept:     u.txt (your edit; no session changed it)\n",
		"  kept:     v.txt (your edit; no session changed it)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"modified: b.txt", "deleted:  u.txt", "deleted:  v.txt", "c.txt (overwrites"} {
		if strings.Contains(out, bad) {
			t.Errorf("dry run has %q:\n%s", bad, out)
		}
	}
	if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Fatalf("dry run changed files:\n%s", d)
	}

	if _, errOut, code := r.Entire("rewind", "--to", first.ID); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	} else if !strings.Contains(errOut, "Kept (your edit; no session changed it): u.txt") {
		t.Errorf("rewind output does not name the kept files:\n%s", errOut)
	}
	want := e2etest.TreeState{}
	for p, v := range before {
		want[p] = v
	}
	want["a.txt"], want["d.txt"] = "file:a1\n", "file:d0\n"
	delete(want, "c.txt")
	if d := e2etest.DiffStates(want, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("after the rewind:\n%s", d)
	}

	if _, errOut, code := r.Entire("rewind", "--undo"); code != 0 {
		t.Fatalf("undo: %s", errOut)
	}
	if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("undo did not give back the user's versions:\n%s", d)
	}
}

// A path counts as changed by a session when any session of the work tree
// changed it in a recorded turn: a file an ended second session created
// goes when the first session rewinds to a point before it.
func TestRewindUndoesEveryWorktreeSession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.TurnWith("turn one: a", map[string]string{"a.txt": "a\n"}, nil)
	r2 := r.WithSession("sess-2")
	r2.TurnWith("second session: x", map[string]string{"x.txt": "x\n"}, nil)
	r2.Hook("session-end", map[string]any{"reason": "exit"})
	r.Sh(`printf 'mine\n' > mine.txt`)
	r.TurnWith("turn two: b", map[string]string{"b.txt": "b\n"}, nil)
	if _, errOut, code := r.Entire("rewind", "--to", e2etest.PointOfTurn(t, r.Points(), 1).ID); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	got := e2etest.Snapshot(t, r.Dir)
	for _, p := range []string{"x.txt", "b.txt"} {
		if _, ok := got[p]; ok {
			t.Errorf("%s survived the rewind", p)
		}
	}
	if got["mine.txt"] != "file:mine\n" || got["a.txt"] != "file:a\n" {
		t.Errorf("after the rewind: %v", got)
	}
}

// What the session state records: the paths each turn changed (a file the
// agent's shell deleted included, the user's untouched edits not), and the
// user's edits as each turn start measured them, against the newest step.
func TestTurnAndUserChangesRecorded(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Sh(`printf 't0\n' > t.txt; git add t.txt; git commit -q -m t; printf 't by hand\n' > t.txt; printf 'mine\n' > mine.txt`)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.TurnWith("turn one: write w, remove mine", map[string]string{"w.txt": "w\n"}, func() { r.Sh(`rm mine.txt`) })
	r.Sh(`printf 'w by hand\n' > w.txt`)
	r.TurnWith("turn two: nothing", nil, nil)

	changes, _ := e2etest.SessionState(t, r.Dir, "sess-1")["changes"].(map[string]any)
	if got := e2etest.AnyStrings(changes["turns"]); !slices.Equal(got, []string{"mine.txt", "w.txt"}) {
		t.Errorf("turn changes %v, want mine.txt and w.txt", got)
	}
	step := strings.TrimSpace(gittest.Git(t, r.Dir, "rev-parse", r.ShadowBranch()))
	user := map[string]string{}
	for _, e := range changes["user"].([]any) {
		m := e.(map[string]any)
		since, _ := m["since"].(string)
		user[m["path"].(string)] = since
		if m["turn_id"] == "" {
			t.Errorf("user edit without its turn: %v", m)
		}
	}
	if want := map[string]string{"mine.txt": "", "t.txt": "", "w.txt": step}; !maps.Equal(user, want) {
		t.Errorf("user edits %v, want %v", user, want)
	}
}
