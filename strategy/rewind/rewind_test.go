package rewind

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/entirecli/entire/agent/claudecode"
	_ "github.com/entirecli/entire/agent/geminicli"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// fixture is a repository with one session whose steps are written the
// way the manual-commit strategy writes them.
type fixture struct {
	t          *testing.T
	dir        string
	repo       *gitrepo.Repo
	sessions   *session.Store
	st         *session.State
	transcript string
	clock      time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := repo.Head()
	fx := &fixture{t: t, dir: dir, repo: repo, sessions: session.NewStore(session.Options{GitCommonDir: repo.CommonDir}),
		transcript: filepath.Join(t.TempDir(), "s1.jsonl"), clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	fx.st = &session.State{SessionID: "s1", BaseCommit: head.String(), WorktreePath: repo.Root, StartedAt: fx.clock,
		Phase: session.PhaseIdle, AgentType: "Claude Code", TranscriptPath: fx.transcript, FirstPrompt: "first prompt"}
	if err := fx.sessions.Save(fx.st); err != nil {
		t.Fatal(err)
	}
	return fx
}

func (fx *fixture) rewinder() *Rewinder {
	return New(Options{Repo: fx.repo, Sessions: fx.sessions, Now: func() time.Time { fx.clock = fx.clock.Add(time.Second); return fx.clock }})
}

// step changes the work tree, appends lines to the transcript and writes
// a step (a task step when toolUseID is set) like the strategy does.
func (fx *fixture) step(subject string, files map[string]string, lines []string, toolUseID, checkpointUUID string) plumbing.Hash {
	t := fx.t
	t.Helper()
	for p, c := range files {
		if c == "" {
			os.Remove(filepath.Join(fx.dir, p))
			continue
		}
		gittest.WriteFile(t, fx.dir, p, c)
	}
	f, _ := os.OpenFile(fx.transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	for _, l := range lines {
		f.WriteString(l + "\n")
	}
	f.Close()
	data, _ := os.ReadFile(fx.transcript)
	ts, err := checkpoint.AppendJSONL(fx.repo, nil, data)
	if err != nil {
		t.Fatal(err)
	}
	status, err := fx.repo.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var dirty []string
	for _, e := range status {
		if !isProtected(e.Path) {
			dirty = append(dirty, e.Path)
		}
	}
	changes, err := fx.repo.WorktreeChanges(dirty)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := fx.repo.Head()
	hc, _ := fx.repo.Git.CommitObject(head)
	dir := checkpoint.MetadataDirPrefix + fx.st.SessionID
	s := checkpoint.Step{Branch: checkpoint.ShadowBranchName(fx.st.BaseCommit, ""), BaseTree: hc.TreeHash, Snapshot: true, Changes: changes}
	if toolUseID == "" {
		s.MetadataDir, s.Transcript = dir, ts
		s.MetadataFiles = map[string][]byte{checkpoint.PromptFile: []byte(subject)}
		s.Message = checkpoint.StepMessage(subject, dir, fx.st.SessionID, checkpoint.StrategyManualCommit)
	} else {
		tc, _ := ts.TreeChanges(fx.repo, dir)
		s.Changes = append(s.Changes, tc...)
		s.MetadataDir = dir + "/tasks/" + toolUseID
		cp, _ := json.Marshal(map[string]string{"checkpoint_uuid": checkpointUUID})
		s.MetadataFiles = map[string][]byte{"checkpoint.json": cp}
		s.Message = checkpoint.TaskStepMessage(subject, s.MetadataDir, fx.st.SessionID, checkpoint.StrategyManualCommit)
	}
	fx.clock = fx.clock.Add(time.Minute)
	h, err := checkpoint.WriteStep(context.Background(), fx.repo, s, fx.clock)
	if err != nil {
		t.Fatal(err)
	}
	var touched []string
	for p := range files {
		touched = append(touched, p)
	}
	fx.st.FilesTouched = append(fx.st.FilesTouched, touched...)
	sort.Strings(fx.st.FilesTouched)
	if err := fx.sessions.Save(fx.st); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestListJSONKeys(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	fx.step("one", map[string]string{"a.txt": "a"}, []string{`{"type":"user","uuid":"u1"}`}, "", "")
	fx.step("task", map[string]string{"b.txt": "b"}, []string{`{"type":"user","uuid":"u2"}`}, "toolu_1", "u2")
	pts, err := fx.rewinder().List(context.Background())
	if err != nil || len(pts) != 2 {
		t.Fatalf("List: %v %+v", err, pts)
	}
	if !pts[0].IsTaskCheckpoint || pts[0].ToolUseID != "toolu_1" || pts[1].IsTaskCheckpoint || pts[1].SessionPrompt != "first prompt" {
		t.Errorf("points %+v", pts)
	}
	b, _ := json.Marshal(pts)
	var raw []map[string]any
	json.Unmarshal(b, &raw)
	var keys []string
	for k := range raw[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := "date id is_logs_only is_task_checkpoint message metadata_dir session_id session_prompt tool_use_id"
	if strings.Join(keys, " ") != want {
		t.Errorf("keys %v", keys)
	}
	if _, err := time.Parse(time.RFC3339, raw[0]["date"].(string)); err != nil {
		t.Errorf("date %v", raw[0]["date"])
	}
}

// TestListIncrementalTaskPoint: an incremental task step (its metadata path
// is a file under tasks/<id>/checkpoints/) lists the whole tool use ID,
// while its message keeps the first 12 characters.
func TestListIncrementalTaskPoint(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	fx.step("one", map[string]string{"a.txt": "a"}, []string{`{"type":"user","uuid":"u1"}`}, "", "")
	const id = "toolu_main_630f5bf8_4_0"
	gittest.WriteFile(t, fx.dir, "b.txt", "b")
	changes, err := fx.repo.WorktreeChanges([]string{"b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := fx.repo.Head()
	hc, _ := fx.repo.Git.CommitObject(head)
	path := checkpoint.MetadataDirPrefix + "s1/tasks/" + id + "/checkpoints/001-" + id + ".json"
	changes = append(changes, gitrepo.Change{Path: path, Mode: 0o100644, Hash: mustBlob(t, fx.repo, "{}\n")})
	fx.clock = fx.clock.Add(time.Minute)
	if _, err := checkpoint.WriteStep(context.Background(), fx.repo, checkpoint.Step{
		Branch: checkpoint.ShadowBranchName(fx.st.BaseCommit, ""), BaseTree: hc.TreeHash, Snapshot: true, Changes: changes,
		Message: checkpoint.TaskStepMessage("Run bash (toolu_main_6)", path, "s1", checkpoint.StrategyManualCommit),
	}, fx.clock); err != nil {
		t.Fatal(err)
	}
	pts, err := fx.rewinder().List(context.Background())
	if err != nil || len(pts) != 2 {
		t.Fatalf("List: %v %+v", err, pts)
	}
	if p := pts[0]; !p.IsTaskCheckpoint || p.ToolUseID != id || p.Message != "Run bash (toolu_main_6)" {
		t.Errorf("incremental task point %+v", p)
	}
}

func mustBlob(t *testing.T, repo *gitrepo.Repo, s string) plumbing.Hash {
	t.Helper()
	h, err := repo.WriteBlob([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestFind(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	h := fx.step("one", map[string]string{"a.txt": "a"}, []string{`{"type":"user","uuid":"u1"}`}, "", "")
	rw := fx.rewinder()
	for _, id := range []string{h.String(), h.String()[:7], strings.ToUpper(h.String()[:10])} {
		if p, err := rw.Find(context.Background(), id); err != nil || p.ID != h.String() {
			t.Errorf("Find(%s): %v %v", id, p, err)
		}
	}
	for _, id := range []string{"", h.String()[:6], "0000000000000000000000000000000000000000"} {
		if _, err := rw.Find(context.Background(), id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Find(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func TestTaskPointTruncatesTranscript(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	lines := []string{`{"type":"user","uuid":"u1"}`, `{"type":"assistant","uuid":"a1"}`, `{"type":"user","uuid":"r1"}`, `{"type":"assistant","uuid":"a2"}`}
	fx.step("task", map[string]string{"a.txt": "a"}, lines, "toolu_1", "r1")
	fx.step("later", map[string]string{"a.txt": "later"}, []string{`{"type":"user","uuid":"u3"}`}, "", "")
	rw := fx.rewinder()
	pts, _ := rw.List(context.Background())
	task := pts[1]
	if !task.IsTaskCheckpoint {
		t.Fatalf("points %+v", pts)
	}
	plan, err := rw.PlanRewind(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Apply(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(fx.transcript)
	if want := strings.Join(lines[:3], "\n") + "\n"; string(got) != want {
		t.Errorf("transcript:\n%s\nwant\n%s", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.dir, "a.txt")); string(b) != "a" {
		t.Errorf("a.txt = %q", b)
	}
	st, _ := fx.sessions.Load("s1")
	if st.ShadowTranscript != nil || st.TranscriptCursor == nil || *st.TranscriptCursor != (session.TranscriptCursor{Entries: 3, Offset: int64(len(got)), LastID: "r1"}) {
		t.Errorf("transcript bookkeeping not reset: %+v %+v", st.ShadowTranscript, st.TranscriptCursor)
	}
}

func TestUndoPointsArePruned(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	one := fx.step("one", map[string]string{"a.txt": "1"}, []string{`{"uuid":"u1"}`}, "", "")
	fx.step("two", map[string]string{"a.txt": "2"}, []string{`{"uuid":"u2"}`}, "", "")
	rw := fx.rewinder()
	p, err := rw.Find(context.Background(), one.String())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < KeepUndo+2; i++ {
		plan, err := rw.PlanRewind(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rw.Apply(context.Background(), plan); err != nil {
			t.Fatal(err)
		}
		if _, err := rw.Undo(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
	}
	names, err := rw.UndoPoints(context.Background())
	if err != nil || len(names) != KeepUndo {
		t.Fatalf("%d undo points (%v), want %d", len(names), err, KeepUndo)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.dir, "a.txt")); string(b) != "2" {
		t.Errorf("after undo a.txt = %q", b)
	}
	// An older undo point by name, then an unknown one.
	if _, err := rw.Undo(context.Background(), names[KeepUndo-1]); err != nil {
		t.Errorf("undo by name: %v", err)
	}
	if _, err := rw.Undo(context.Background(), "nope"); !errors.Is(err, ErrNoUndo) {
		t.Errorf("unknown undo point: %v", err)
	}
}

func TestUndoRestoresIndex(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	one := fx.step("one", map[string]string{"a.txt": "1"}, []string{`{"uuid":"u1"}`}, "", "")
	rw := fx.rewinder()
	p, _ := rw.Find(context.Background(), one.String())
	plan, err := rw.PlanRewind(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Apply(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, fx.dir, "staged.txt", "s")
	gittest.Git(t, fx.dir, "add", "staged.txt")
	if _, err := rw.Undo(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if st := gittest.Git(t, fx.dir, "status", "--porcelain"); st != "?? a.txt" {
		t.Errorf("status after undo: %q", st)
	}
}

func TestDiffTreesSkipsProtected(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	base, _ := fx.repo.Head()
	bc, _ := fx.repo.Git.CommitObject(base)
	blob, _ := fx.repo.WriteBlob([]byte("x"))
	tree, err := fx.repo.BuildTree(bc.TreeHash, []gitrepo.Change{
		{Path: "src/a/b.txt", Mode: 0o100644, Hash: blob},
		{Path: ".entire/metadata/s/full.jsonl", Mode: 0o100644, Hash: blob},
		{Path: "README.md", Delete: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	if err := diffTrees(fx.repo, bc.TreeHash, tree, got); err != nil {
		t.Fatal(err)
	}
	if keys := strings.Join(sortedSet(got), " "); keys != "README.md src/a/b.txt" {
		t.Errorf("diff %s", keys)
	}
}

func TestSanitizeAndShort(t *testing.T) {
	t.Parallel()
	if s := firstLine("  a\n b  ", 10); s != "a b" {
		t.Errorf("firstLine %q", s)
	}
	if s := firstLine(strings.Repeat("é", 12), 10); s != strings.Repeat("é", 10)+"..." {
		t.Errorf("firstLine cut %q", s)
	}
	if !bytes.Equal([]byte(short("abcdefghij")), []byte("abcdefg")) || short("ab") != "ab" {
		t.Error("short")
	}
}

func TestSafePath(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "real"), 0o755)
	os.Symlink(t.TempDir(), filepath.Join(root, "link"))
	for p, ok := range map[string]bool{
		"a.txt": true, "real/x": true, "new/dir/x": true, "link": true,
		"link/x": false, "../x": false, "a/../b": false, "/etc/passwd": false, ".git/config": false, ".entire/x": false, "": false,
	} {
		if err := safePath(root, p, true); (err == nil) != ok {
			t.Errorf("safePath(%q) = %v", p, err)
		}
	}
	if err := safePath(root, "link/x", false); err != nil {
		t.Errorf("syntax-only check: %v", err)
	}
}

// The cursor a rewind leaves is the session agent's end position: Claude
// JSONL counts lines and ends at the last uuid; Gemini JSONL counts lines
// and ends at the last message record; a Gemini document counts messages.
func TestEndCursorByAgent(t *testing.T) {
	t.Parallel()
	claude := "{\"type\":\"user\",\"uuid\":\"u1\"}\n{\"type\":\"assistant\",\"uuid\":\"a1\"}\n"
	geminiJSONL := "{\"sessionId\":\"s\",\"projectHash\":\"h\",\"startTime\":\"t\"}\n" +
		"{\"id\":\"m1\",\"type\":\"user\",\"content\":[{\"text\":\"hi\"}]}\n" +
		"{\"id\":\"m2\",\"type\":\"gemini\",\"content\":\"yo\"}\n{\"$set\":{\"lastUpdated\":\"t\"}}\n"
	geminiDoc := "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\"id\": \"m1\", \"type\": \"user\", \"content\": \"hi\"},\n    {\"id\": \"m2\", \"type\": \"gemini\", \"content\": \"yo\"}\n  ]\n}\n"
	for _, c := range []struct {
		name, agentType, data string
		want                  session.TranscriptCursor
	}{
		{"claude", "Claude Code", claude, session.TranscriptCursor{Entries: 2, Offset: int64(len(claude)), LastID: "a1"}},
		{"gemini jsonl", "Gemini CLI", geminiJSONL, session.TranscriptCursor{Entries: 4, Offset: int64(len(geminiJSONL)), LastID: "m2"}},
		// The label is not needed: Gemini content is recognised.
		{"gemini jsonl, unlabelled", "", geminiJSONL, session.TranscriptCursor{Entries: 4, Offset: int64(len(geminiJSONL)), LastID: "m2"}},
		{"gemini document", "Gemini CLI", geminiDoc, session.TranscriptCursor{Entries: 2, LastID: "m2"}},
	} {
		got := endCursor(c.agentType, []byte(c.data))
		if got == nil || *got != c.want {
			t.Errorf("%s: cursor %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Only paths a session's turns changed go back: those only the user
// changed are kept, and a path also edited by hand after the point (as the
// turn starts measured, or since the newest step) is marked.
func TestPlanKeepsUserEdits(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	one := fx.step("one", map[string]string{"a.txt": "a1", "e.txt": "e1"}, []string{`{"uuid":"u1"}`}, "", "")
	gittest.WriteFile(t, fx.dir, "README.md", "edited by hand\n") // between the turns
	two := fx.step("two", map[string]string{"a.txt": "a2", "c.txt": "c", "e.txt": "e2"}, []string{`{"uuid":"u2"}`}, "", "")
	gittest.WriteFile(t, fx.dir, "u.txt", "by hand")   // after the last turn
	gittest.WriteFile(t, fx.dir, "e.txt", "e by hand") // after the last turn
	fx.st.Changes = &session.ChangeRecord{
		Turns: []string{"a.txt", "c.txt", "e.txt"},
		User: []session.UserEdit{
			{Path: "README.md", TurnID: "t2", Since: one.String()},
			{Path: "a.txt", TurnID: "t1"}, // before the first step
		},
	}
	if err := fx.sessions.Save(fx.st); err != nil {
		t.Fatal(err)
	}
	rw := fx.rewinder()
	plan := planTo(t, rw, one)
	var got []string
	for _, c := range plan.Changes {
		got = append(got, fmt.Sprintf("%c %s %v", c.Kind, c.Path, c.OverwritesEdits))
	}
	if want := []string{"M a.txt false", "D c.txt false", "M e.txt true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	if want := []string{"README.md", "u.txt"}; !reflect.DeepEqual(plan.UserKept, want) {
		t.Errorf("kept %v, want %v", plan.UserKept, want)
	}

	// A user edit measured against a step after the point marks the path.
	fx.st.Changes.Turns = append(fx.st.Changes.Turns, "README.md")
	if err := fx.sessions.Save(fx.st); err != nil {
		t.Fatal(err)
	}
	for _, c := range planTo(t, rw, one).Changes {
		if c.Path == "README.md" && !c.OverwritesEdits {
			t.Errorf("README.md, edited by hand after the point, not marked")
		}
	}
	// Rewinding to the newest step leaves README.md alone: that step
	// holds the edit.
	for _, c := range planTo(t, rw, two).Changes {
		if c.Path != "e.txt" || !c.OverwritesEdits {
			t.Errorf("rewind to the newest step: %+v", c)
		}
	}
}

// planTo plans the rewind to the point of step h.
func planTo(t *testing.T, rw *Rewinder, h plumbing.Hash) *Plan {
	t.Helper()
	p, err := rw.Find(context.Background(), h.String())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := rw.PlanRewind(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
