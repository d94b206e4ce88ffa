//go:build torture

package torture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	srewind "github.com/entirecli/entire/strategy/rewind"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Rewinds do not crowd turns out of the list, and a point listed once
// stays reachable: each rewind and undo records a step of its own, which
// counted as a point, so that after a few rewinds in a long session a turn
// listed a moment before could no longer be rewound to (issue 30, item
// 10: 8 of 20 rewinds failed in a 300-turn session).
func TestRewindsKeepTurnsListedAndReachable(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	for i := 1; i <= 24; i++ {
		r.PlayTurn(fmt.Sprintf("Turn %02d", i), map[string]string{fmt.Sprintf("f%02d.txt", i): fmt.Sprint(i) + "\n"})
	}
	before := r.Points()
	if len(before) != srewind.MaxPoints {
		t.Fatalf("%d points listed, want %d", len(before), srewind.MaxPoints)
	}
	oldest := before[len(before)-1]
	for i := 0; i < 8; i++ {
		target := before[(i*3)%len(before)]
		r.MustEntire("rewind", "--to", target.ID)
		if i%2 == 1 {
			r.MustEntire("rewind", "--undo")
		}
	}
	after := r.Points()
	for i, p := range after {
		if p.ID != before[i].ID {
			t.Fatalf("point %d changed after rewinds: %q, was %q", i, p.Message, before[i].Message)
		}
	}
	// The oldest point listed at first, and one never listed, are still
	// rewind targets.
	r.MustEntire("rewind", "--to", oldest.ID)
	if _, err := os.Stat(filepath.Join(r.Dir, "f06.txt")); err == nil {
		t.Errorf("f06.txt exists after a rewind to %q", oldest.Message)
	}
	var turn2 string
	for _, line := range strings.Split(gittest.Git(t, r.Dir, "log", "--format=%H %s", e2etest.ShadowBranches(t, r.Dir)[0]), "\n") {
		if sha, subject, _ := strings.Cut(line, " "); strings.HasPrefix(subject, "Turn 02") {
			turn2 = sha
		}
	}
	r.MustEntire("rewind", "--to", turn2)
	if _, err := os.Stat(filepath.Join(r.Dir, "f03.txt")); err == nil {
		t.Error("f03.txt exists after a rewind to turn 2")
	}
	// A rewind's own step says what it is.
	rewindStep := gittest.Git(t, r.Dir, "rev-parse", e2etest.ShadowBranches(t, r.Dir)[0])
	if _, errOut, code := r.Entire("rewind", "--to", rewindStep); code == 0 || !strings.Contains(errOut, "records a rewind") {
		t.Errorf("rewind --to a rewind step: exit %d\n%s", code, errOut)
	}
}
