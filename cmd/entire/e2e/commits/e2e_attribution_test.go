package commits

import (
	"fmt"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// lines returns n numbered lines with a prefix.
func lines(prefix string, from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

// assertAttribution checks a checkpoint's stored initial_attribution and
// the line explain shows for it.
func assertAttribution(t *testing.T, r *e2etest.SessionRepo, id string, agentLines, humanAdded, humanModified, humanRemoved, total int, pct float64, line string) {
	t.Helper()
	meta := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json"))
	a, ok := meta["initial_attribution"].(map[string]any)
	if !ok {
		t.Fatalf("checkpoint %s has no initial_attribution: %v", id, meta)
	}
	want := map[string]float64{"agent_lines": float64(agentLines), "human_added": float64(humanAdded), "human_modified": float64(humanModified),
		"human_removed": float64(humanRemoved), "total_committed": float64(total)}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("initial_attribution.%s = %v, want %v (%v)", k, a[k], v, a)
		}
	}
	if got, _ := a["agent_percentage"].(float64); fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", pct) {
		t.Errorf("initial_attribution.agent_percentage = %v, want %v", a["agent_percentage"], pct)
	}
	out := r.MustEntire("explain", "--checkpoint", id, "--short", "--no-pager")
	if !strings.Contains(out, line+"\n") {
		t.Errorf("explain lacks %q:\n%s", line, out)
	}
}

// Lines the user adds at commit time to a file the agent never touched are
// human: 1 agent line and 4 human lines are 20% agent.
func TestE2EAttributionUntouchedFileAtCommit(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("add a line", map[string]string{"a.txt": "agent line\n"})
	gittest.WriteFile(t, r.Dir, "b.txt", lines("human", 1, 4))
	id, _ := r.Commit("a and b", nil, "a.txt", "b.txt")
	assertAttribution(t, r, id, 1, 4, 0, 0, 5, 20,
		"Attribution: 20.0% agent (1 of 5 committed lines; human +4 ~0 -0)")
}

// Lines the user adds between turns to a file the agent never touched,
// measured at the next turn start, count once.
func TestE2EAttributionUntouchedFileBetweenTurns(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("add a line", map[string]string{"a.txt": "agent line\n"})
	gittest.WriteFile(t, r.Dir, "b.txt", lines("human", 1, 4))
	r.PlayTurn("add another", map[string]string{"c.txt": "agent line\n"})
	id, _ := r.Commit("a, b and c", nil, "a.txt", "b.txt", "c.txt")
	assertAttribution(t, r, id, 2, 4, 0, 0, 6, 100.0*2/6,
		"Attribution: 33.3% agent (2 of 6 committed lines; human +4 ~0 -0)")
}

// Lines the user adds between turns to a file the agent writes are human,
// although the agent's next e2etest.Snapshot holds them: 13 agent lines and 5
// human lines are 72.2% agent.
func TestE2EAttributionUserEditsBetweenTurns(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	first := lines("agent", 1, 10)
	r.PlayTurn("write ten lines", map[string]string{"a.txt": first})
	withUser := first + lines("human", 1, 5)
	gittest.WriteFile(t, r.Dir, "a.txt", withUser)
	r.PlayTurn("add three lines", map[string]string{"a.txt": withUser + lines("agent", 11, 3)})
	st := e2etest.SessionState(t, r.Dir, "sess-1")
	pa, _ := st["prompt_attributions"].([]any)
	if len(pa) != 2 {
		t.Fatalf("prompt_attributions = %v, want one per step", st["prompt_attributions"])
	}
	if second, _ := pa[1].(map[string]any); second["user_lines_added"] != float64(5) || second["checkpoint_number"] != float64(2) || second["agent_lines_added"] != float64(10) {
		t.Errorf("prompt_attributions[1] = %v, want 5 user lines (and the agent's 10 so far) at checkpoint 2", pa[1])
	}
	id, _ := r.Commit("a", nil, "a.txt")
	assertAttribution(t, r, id, 13, 5, 0, 0, 18, 100.0*13/18,
		"Attribution: 72.2% agent (13 of 18 committed lines; human +5 ~0 -0)")
	if st := e2etest.SessionState(t, r.Dir, "sess-1"); st["prompt_attributions"] != nil || st["pending_prompt_attribution"] != nil {
		t.Errorf("condensation left attribution in the state: %v %v", st["prompt_attributions"], st["pending_prompt_attribution"])
	}
}
