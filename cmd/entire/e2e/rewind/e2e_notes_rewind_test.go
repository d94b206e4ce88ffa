package rewind

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// Notes travel with checkpoints: notes saved in turn 2 and changed in turn 4
// read back as in turn 2 after rewinding to turn 2, and as in turn 4 after
// --undo (issue 6).
func TestRewindRestoresNotes(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	note := func(args ...string) string {
		t.Helper()
		out, errOut, code := r.Entire(append([]string{"note"}, args...)...)
		if code != 0 {
			t.Fatalf("entire note %v: %d %s", args, code, errOut)
		}
		return out
	}
	r.AgentTurn("turn one", map[string]string{"one.txt": "1\n"})
	note("save", "layout", "the layout as of turn two")
	r.AgentTurn("turn two", map[string]string{"two.txt": "2\n"})
	r.AgentTurn("turn three", map[string]string{"three.txt": "3\n"})
	note("save", "layout", "the layout as of turn four")
	note("save", "extra", "added in turn four")
	r.AgentTurn("turn four", map[string]string{"four.txt": "4\n"})

	target := r.PointOf("Turn two")
	_, errOut, code := e2etest.RunEntire(t, r.Dir, append(r.Env, "ENTIRE_RENDERABLE_REFS=1"), "", "rewind", "--to", target)
	if code != 0 {
		t.Fatalf("rewind: %d %s", code, errOut)
	}
	if !strings.Contains(errOut, `::entire-ref/v1::{"v":1,"type":"undo_point"`) {
		t.Errorf("rewind e2etest.Announced no undo point reference:\n%s", errOut)
	}
	if got := note("show", "layout"); !strings.Contains(got, "as of turn two") {
		t.Errorf("after rewind, layout = %q", got)
	}
	if _, errOut, code := r.Entire("note", "show", "extra"); code == 0 {
		t.Errorf("note added after turn two survived the rewind: %s", errOut)
	}
	if _, errOut, code := r.Entire("rewind", "--undo"); code != 0 {
		t.Fatalf("undo: %d %s", code, errOut)
	}
	if got := note("show", "layout"); !strings.Contains(got, "as of turn four") {
		t.Errorf("after undo, layout = %q", got)
	}
	if got := note("show", "extra"); !strings.Contains(got, "added in turn four") {
		t.Errorf("after undo, extra = %q", got)
	}
}
