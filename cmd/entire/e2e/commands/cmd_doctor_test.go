package commands

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestDoctorCondensesEndedSession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	if out, _, code := r.Entire("doctor"); code != 0 || out != "No stuck sessions found.\n" {
		t.Errorf("doctor with no sessions: %d %q", code, out)
	}
	r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.AgentTurn("Add a farewell", map[string]string{"bye.txt": "bye\n"})
	if out, _, _ := r.Entire("doctor"); out != "No stuck sessions found.\n" {
		t.Errorf("doctor with an idle session: %q", out)
	}
	r.Hook("session-end", map[string]any{"reason": "exit"})
	shadow := r.ShadowBranches()[0]

	out, stderr, code := r.Entire("doctor")
	for _, want := range []string{
		"Found 1 stuck session(s):", "Session: sess-1", "Phase: ended", "Reason: ended with 2 checkpoint(s)",
		"Agent: Claude Code", "Shadow branch: exists (" + shadow + ")", "Checkpoints: 2, Files touched: 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor listing lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || !strings.Contains(stderr, "entire doctor --force") {
		t.Errorf("doctor without terminal: %d %q", code, stderr)
	}

	out, stderr, code = r.Entire("doctor", "--force")
	m := regexp.MustCompile(`Condensed session sess-1 into checkpoint ([0-9a-f]{12})`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("doctor --force: %d\n%s\n%s", code, out, stderr)
	}
	id := m[1]
	meta := e2etest.SessionMeta(t, r.Dir, id)
	if meta["session_id"] != "sess-1" || meta["checkpoints_count"] != float64(2) || meta["strategy"] != "manual-commit" {
		t.Errorf("condensed metadata %v", meta)
	}
	if ft, _ := json.Marshal(meta["files_touched"]); string(ft) != `["bye.txt","hello.txt"]` {
		t.Errorf("condensed files_touched %s", ft)
	}
	if p := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/0/prompt.txt"); p != "Add a greeting\n\n---\n\nAdd a farewell" {
		t.Errorf("condensed prompt.txt %q", p)
	}
	st := r.State("sess-1")
	if st["phase"] != "idle" || st["last_checkpoint_id"] != id || st["checkpoint_count"] != float64(0) {
		t.Errorf("state after condense: %v", st)
	}
	if bs := r.ShadowBranches(); len(bs) != 0 {
		t.Errorf("shadow branch kept after condense: %v", bs)
	}
	if out, _, _ := r.Entire("doctor"); out != "No stuck sessions found.\n" {
		t.Errorf("doctor after the fix: %q", out)
	}
	// No user commit links the forced checkpoint.
	if log := gittest.Git(t, r.Dir, "log", "--format=%B"); strings.Contains(log, id) {
		t.Error("a commit references the doctor's checkpoint")
	}
	gittest.Fsck(t, r.Dir)
}

func TestDoctorDiscardsStaleActiveSession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	r.WriteState("stale", `{"session_id":"stale","base_commit":"`+head+`","started_at":"2020-01-01T00:00:00Z","phase":"active","last_interaction_time":"2020-01-01T01:00:00Z","agent_type":"Gemini CLI"}`)
	r.WriteState("fresh", `{"session_id":"fresh","base_commit":"`+head+`","started_at":"2020-01-01T00:00:00Z","phase":"active","last_interaction_time":"2999-01-01T00:00:00Z"}`)
	out, _, code := r.Entire("doctor", "--force")
	for _, want := range []string{"Found 1 stuck session(s):", "Session: stale", "Last interaction: 2020-01-01T01:00:00Z", "Shadow branch: not found", "Discarded session stale"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor --force lacks %q:\n%s", want, out)
		}
	}
	if code != 0 || r.State("stale") != nil || r.State("fresh") == nil {
		t.Errorf("doctor --force: exit %d, states stale=%v fresh=%v", code, r.State("stale"), r.State("fresh"))
	}
	if _, stderr, code := e2etest.RunEntire(t, t.TempDir(), nil, "", "doctor"); code != 1 || !strings.Contains(stderr, "not a git repository") {
		t.Errorf("doctor outside a repository: %d %q", code, stderr)
	}
}
