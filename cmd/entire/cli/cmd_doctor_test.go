package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestDoctorCondensesEndedSession(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
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
	meta := SessionMeta(t, r.Dir, id)
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
	r := NewSessionRepo(t)
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
	if _, stderr, code := RunEntire(t, t.TempDir(), nil, "", "doctor"); code != 1 || !strings.Contains(stderr, "not a git repository") {
		t.Errorf("doctor outside a repository: %d %q", code, stderr)
	}
}

// promptFactory is a test factory that can prompt, in accessible
// (plain-text) mode, reading answer.
func promptFactory(dir, answer string) (*factory, func() string) {
	f, out, errOut := testFactory(dir, map[string]string{"ACCESSIBLE": "1"})
	f.IO.In = strings.NewReader(answer)
	f.IO.SetStdinTTY(true)
	f.IO.SetStderrTTY(true)
	return f, func() string { return out.String() + "\n--- stderr ---\n" + errOut.String() }
}

func TestDoctorAsks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer, want string
		stateKept    bool
	}{
		{"3\n", "Skipped session sess-1", true},
		{"2\n", "Discarded session sess-1", false},
		{"1\n", "Condensed session sess-1 into checkpoint", true},
	} {
		t.Run(strings.TrimSpace(tt.answer), func(t *testing.T) {
			t.Parallel()
			r := NewSessionRepo(t)
			r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
			r.Hook("session-end", map[string]any{"reason": "exit"})
			f, output := promptFactory(r.Dir, tt.answer)
			if code := run([]string{"doctor"}, f); code != exitOK {
				t.Fatalf("doctor exit %d:\n%s", code, output())
			}
			if !strings.Contains(output(), tt.want) || !strings.Contains(output(), "Condense (save its checkpoints") {
				t.Errorf("doctor with answer %q:\n%s", tt.answer, output())
			}
			if kept := r.State("sess-1") != nil; kept != tt.stateKept {
				t.Errorf("state kept = %v", kept)
			}
		})
	}
}

func TestResetAsks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer    string
		stateKept bool
	}{
		{"n\n", true},
		{"y\n", false},
	} {
		t.Run(strings.TrimSpace(tt.answer), func(t *testing.T) {
			t.Parallel()
			r := NewSessionRepo(t)
			r.AgentTurn("Add a greeting", map[string]string{"hello.txt": "hello\n"})
			f, output := promptFactory(r.Dir, tt.answer)
			if code := run([]string{"reset", "--session", "sess-1"}, f); code != exitOK {
				t.Fatalf("reset exit %d:\n%s", code, output())
			}
			if !strings.Contains(output(), "Reset session sess-1?") || !strings.Contains(output(), "Phase: idle, Checkpoints: 1") {
				t.Errorf("reset question:\n%s", output())
			}
			if kept := r.State("sess-1") != nil; kept != tt.stateKept {
				t.Errorf("state kept = %v:\n%s", kept, output())
			}
		})
	}
}
