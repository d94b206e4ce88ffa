//go:build torture

package commits

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A turn that appends more than checkpoint.SourceWindow is stored window
// by window (a stream, see storeSource); its lines still reach the local
// log, so the condensation writes condensed.json for a scope that spans
// it, and explain shows from it what it shows from the stored transcript.
func TestExplainCondensedSummaryAfterWindowedStore(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.PlayTurn("write the first file", map[string]string{"a.txt": "a\n"})
	big := strings.Repeat("output line of a long build\n", 120_000) // ~3.4 MB
	r.TurnWith("run the long build", map[string]string{"b.txt": "b\n"}, func() {
		for i := range 3 {
			r.AppendTranscript(map[string]any{"type": "user", "uuid": fmt.Sprintf("big-%d", i), "message": map[string]any{
				"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_big_%d", i), "content": big}},
			}})
		}
	})
	id := r.CommitAll("both")
	if view := explainedAlikeWithoutSummary(t, r, id); !strings.Contains(view, "run the long build") {
		t.Errorf("the windowed turn is not explained:\n%s", view)
	}
}

// A squash merge carries the trailers of the commits it squashes: explain
// --commit shows their attributions combined, weighted by lines (not the
// mean of the percentages).
func TestE2EAttributionSquashMerge(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.MustGit("checkout", "-q", "-b", "feature")
	r.PlayTurn("add a line", map[string]string{"a.txt": "agent line\n"})
	gittest.WriteFile(t, r.Dir, "b.txt", lines("human", 1, 4))
	first, _ := r.Commit("a and b", nil, "a.txt", "b.txt")
	r.PlayTurn("add three lines", map[string]string{"c.txt": lines("agent", 1, 3)})
	second, _ := r.Commit("c", nil, "c.txt")
	assertAttribution(t, r, first, 1, 4, 0, 0, 5, 20, "Attribution: 20.0% agent (1 of 5 committed lines; human +4 ~0 -0)")
	assertAttribution(t, r, second, 3, 0, 0, 0, 3, 100, "Attribution: 100.0% agent (3 of 3 committed lines; human +0 ~0 -0)")

	r.MustGit("checkout", "-q", "main")
	r.MustGit("merge", "--squash", "feature")
	// A forge's squash message: the squashed commits' trailers, one of
	// them twice, at the end.
	msg := fmt.Sprintf("Feature (#1)\n\n* a and b\n* c\n\nEntire-Checkpoint: %s\nEntire-Checkpoint: %s\nEntire-Checkpoint: %s\n", first, second, first)
	r.MustGit("commit", "-q", "-m", msg)
	out := r.MustEntire("explain", "--commit", "HEAD", "--short", "--no-pager")
	// (1+3) of (5+3) lines: 50.0%, where the mean of 20% and 100% is 60%.
	if want := "Attribution (2 checkpoints combined): 50.0% agent (4 of 8 committed lines; human +4 ~0 -0)\n"; !strings.Contains(out, want) {
		t.Errorf("explain --commit of the squash commit lacks %q:\n%s", want, out)
	}
	// A commit with one checkpoint has no combined line.
	if out := r.MustEntire("explain", "--commit", "feature", "--short", "--no-pager"); strings.Contains(out, "combined") {
		t.Errorf("explain --commit of a one-checkpoint commit shows a combined attribution:\n%s", out)
	}
}

// Session metadata stores transcript_path relative to $HOME, and nothing
// when the transcript is outside it (SPEC 3.7): Entire 0.4.x restores to
// $HOME/<path>. A rewind restores to $HOME/<relative path>, to an absolute
// path our earlier versions stored, and to the live transcript when none
// is stored.
func TestTranscriptPathRelativeToHome(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	home := t.TempDir()
	r.Transcript = filepath.Join(home, ".claude", "projects", "-proj", "sess-1.jsonl")
	if err := os.MkdirAll(filepath.Dir(r.Transcript), 0o750); err != nil {
		t.Fatal(err)
	}
	r.Env = append(r.Env, "HOME="+home)
	r.AgentTurn("Add a", map[string]string{"a.txt": "a\n"})
	first := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	id := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	r.AgentTurn("Add b", map[string]string{"b.txt": "b\n"})
	if m := e2etest.SessionMeta(t, r.Dir, id); m["transcript_path"] != ".claude/projects/-proj/sess-1.jsonl" {
		t.Fatalf("transcript_path %v", m["transcript_path"])
	}
	after1, err := gittest.GitErr(r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r.MustEntire("rewind", "--to", first, "--logs-only")
	if b, _ := os.ReadFile(r.Transcript); strings.TrimSuffix(string(b), "\n") != after1 {
		t.Errorf("rewind to a relative transcript_path: live transcript\n%s\nwant\n%s", b, after1)
	}

	// The absolute path an earlier version stored is read, not written to:
	// the rewind restores where the agent looks on this machine (the
	// session's live transcript), as resume does.
	old := filepath.Join(t.TempDir(), "old.jsonl")
	setSessionMetaField(t, r.Dir, id, "transcript_path", old)
	if err := os.WriteFile(r.Transcript, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.MustEntire("rewind", "--to", first, "--logs-only")
	if _, err := os.Stat(old); err == nil {
		t.Errorf("rewind wrote to the stored absolute transcript_path %s", old)
	}
	if b, _ := os.ReadFile(r.Transcript); strings.TrimSuffix(string(b), "\n") != after1 {
		t.Errorf("rewind with an absolute transcript_path: live transcript\n%s\nwant\n%s", b, after1)
	}

	// A transcript outside $HOME: no transcript_path; a rewind restores the
	// session's live transcript.
	o := e2etest.NewAutoCommitRepo(t)
	o.AgentTurn("Add a", map[string]string{"a.txt": "a\n"})
	first = gittest.Git(t, o.Dir, "rev-parse", "HEAD")
	id = e2etest.CheckpointOf(t, gittest.Git(t, o.Dir, "log", "-1", "--format=%B"))
	o.AgentTurn("Add b", map[string]string{"b.txt": "b\n"})
	if m := e2etest.SessionMeta(t, o.Dir, id); m["transcript_path"] != nil {
		t.Fatalf("transcript_path of a transcript outside $HOME: %v", m["transcript_path"])
	}
	o.MustEntire("rewind", "--to", first, "--logs-only")
	if b, _ := os.ReadFile(o.Transcript); strings.Contains(string(b), "Add b") || !strings.Contains(string(b), "Add a") {
		t.Errorf("rewind without transcript_path: live transcript\n%s", b)
	}
}

// A condensed session's prompt.txt and context.md hold every prompt of the
// session so far, not only those since its previous checkpoint (SPEC
// 5.2.5: "all prompts of the full transcript").
func TestE2ECondensedPromptsWholeSession(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write one", map[string]string{"one.txt": "1\n"})
	r.MustGit("add", "one.txt")
	r.MustGit("commit", "-q", "-m", "One")
	id1 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	r.PlayTurn("Write two", map[string]string{"two.txt": "2\n"})
	r.PlayTurn("Write three", map[string]string{"three.txt": "3\n"})
	r.MustGit("add", "two.txt", "three.txt")
	r.MustGit("commit", "-q", "-m", "Two and three")
	id2 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id1 == "" || id2 == "" || id1 == id2 {
		t.Fatalf("checkpoints %q %q", id1, id2)
	}
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id1, "0/prompt.txt")); p != "Write one" {
		t.Errorf("first prompt.txt %q", p)
	}
	want := "Write one\n\n---\n\nWrite two\n\n---\n\nWrite three"
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id2, "0/prompt.txt")); p != want {
		t.Errorf("second prompt.txt %q, want %q", p, want)
	}
	ctx := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id2, "0/context.md"))
	for _, s := range []string{"### Prompt 1\n\nWrite one", "### Prompt 2\n\nWrite two", "### Prompt 3\n\nWrite three"} {
		if !strings.Contains(ctx, s) {
			t.Errorf("context.md lacks %q:\n%s", s, ctx)
		}
	}

	// Amending the linked commit after more work keeps one list, each
	// prompt once.
	r.PlayTurn("Write four", map[string]string{"four.txt": "4\n"})
	r.MustGit("add", "four.txt")
	r.MustGit("commit", "-q", "--amend", "--no-edit")
	if got := e2etest.CheckpointAt(t, r.Dir, "HEAD"); got != id2 {
		t.Fatalf("amended commit checkpoint %q, want %s", got, id2)
	}
	want += "\n\n---\n\nWrite four"
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id2, "0/prompt.txt")); p != want {
		t.Errorf("prompt.txt after amend %q, want %q", p, want)
	}
	e2etest.AssertStoreClean(t, r.Dir, id1, id2)
}

// Amending more agent work into a linked commit keeps its checkpoint ID,
// and the checkpoint then covers the whole amended commit: the earlier
// prompts, files and steps are merged with the new ones, not replaced.
func TestE2EAmendWithNewAgentWork(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write a", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "A")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	r.PlayTurn("Write b", map[string]string{"b.txt": "b\n"})
	r.MustGit("add", "b.txt")
	r.MustGit("commit", "-q", "--amend", "--no-edit")
	if got := e2etest.CheckpointAt(t, r.Dir, "HEAD"); got != id {
		t.Fatalf("amended commit trailer %q, want %s", got, id)
	}
	m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json"))
	if ft := e2etest.AnyStrings(m["files_touched"]); !slices.Equal(ft, []string{"a.txt", "b.txt"}) || m["checkpoints_count"] != float64(2) {
		t.Errorf("checkpoint after amend: files %v count %v", ft, m["checkpoints_count"])
	}
	if tu, _ := m["token_usage"].(map[string]any); tu["input_tokens"] != float64(20) {
		t.Errorf("token_usage after amend %v", m["token_usage"])
	}
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")); p != "Write a\n\n---\n\nWrite b" {
		t.Errorf("prompt.txt after amend %q", p)
	}
	if root := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "metadata.json")); len(root["sessions"].([]any)) != 1 {
		t.Errorf("root after amend %v", root)
	}
	live, _ := os.ReadFile(r.Transcript)
	if tr := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl")); tr != strings.TrimSuffix(string(live), "\n") {
		t.Errorf("transcript after amend is not the whole session's")
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// A file the agent created, that the user deleted and wrote again by hand
// with other content, is not the agent's work: committing it is not
// linked, and a commit that carries a trailer anyway (written by hand)
// does not condense the session. A file the agent modified counts by name:
// the user's further edits of it are still linked.
func TestE2ERecreatedNewFileNotLinked(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write notes and edit the readme", map[string]string{"notes.txt": "agent notes\n", "todo.txt": "agent todo\n", "README.md": "hello\nagent line\n"})
	rewrite := func(path, content string) {
		t.Helper()
		if err := os.Remove(filepath.Join(r.Dir, path)); err != nil {
			t.Fatal(err)
		}
		gittest.WriteFile(t, r.Dir, path, content)
	}

	rewrite("notes.txt", "my own notes\n")
	r.MustGit("add", "notes.txt")
	r.MustGit("commit", "-q", "-m", "My notes")
	if id := e2etest.CheckpointAt(t, r.Dir, "HEAD"); id != "" {
		t.Fatalf("commit of a file the user wrote again by hand linked to %s", id)
	}

	// A trailer written by hand: post-commit checks content too.
	rewrite("todo.txt", "my own todo\n")
	r.MustGit("add", "todo.txt")
	r.MustGit("commit", "-q", "-m", "My todo\n\nEntire-Checkpoint: a1b2c3d4e5f6")
	if out, err := exec.Command("git", "-C", r.Dir, "cat-file", "-e", e2etest.CpPath("a1b2c3d4e5f6", "0/metadata.json")).CombinedOutput(); err == nil {
		t.Errorf("hand-written trailer on the user's own file condensed the session (%s)", out)
	}

	// The agent's modified file, edited further by the user: linked.
	gittest.WriteFile(t, r.Dir, "README.md", "hello\nagent line\nuser line\n")
	r.MustGit("add", "README.md")
	r.MustGit("commit", "-q", "-m", "Readme")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit of the agent's modified file not linked")
	}
	if m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json")); m["session_id"] != "sess-1" {
		t.Errorf("checkpoint session %v", m["session_id"])
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// A condensation stores the condensed transcript of its scope
// (condensed.json), and the default explain view shows from it exactly
// what it shows from the stored transcript of a checkpoint without one
// (an Entire 0.4.x checkpoint), for a first checkpoint and for a later one
// whose scope starts past the transcript's start.
func TestExplainCondensedSummary(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.PlayTurn("write the first file", map[string]string{"a.txt": "a\n"})
	r.PlayTurn("write the second file", map[string]string{"b.txt": "b\n"})
	first := r.CommitAll("first")
	r.PlayTurn("write the third file", map[string]string{"c.txt": "c\n"})
	second := r.CommitAll("second")
	for _, id := range []string{first, second} {
		view := explainedAlikeWithoutSummary(t, r, id)
		if id == second && (strings.Contains(view, "write the first file") || !strings.Contains(view, "write the third file")) {
			t.Errorf("the second checkpoint's scope:\n%s", view)
		}
	}
}

func TestAutoCommitSessionEndToEnd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewAutoCommitRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	base := gittest.Git(t, r.Dir, "rev-parse", "HEAD")

	errOut := r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	if !strings.Contains(errOut, "Committed code changes to active branch (") || !strings.Contains(errOut, "Committed session metadata to entire/checkpoints/v1 (") {
		t.Errorf("turn 1 stderr:\n%s", errOut)
	}
	msg1 := gittest.Git(t, r.Dir, "log", "-1", "--format=%B")
	id1 := e2etest.CheckpointOf(t, msg1)
	if want := "Add a greeting\n\nEntire-Checkpoint: " + id1; msg1 != want {
		t.Errorf("commit message %q, want %q", msg1, want)
	}
	if parent := gittest.Git(t, r.Dir, "rev-parse", "HEAD^"); parent != base {
		t.Errorf("checkpoint commit's parent %s, want %s", parent, base)
	}
	if author := gittest.Git(t, r.Dir, "log", "-1", "--format=%an <%ae>"); author != "Test User <test@example.com>" {
		t.Errorf("author %q", author)
	}
	if files := gittest.Git(t, r.Dir, "show", "--format=", "--name-only", "HEAD"); files != "hello.txt" {
		t.Errorf("turn 1 committed %q", files)
	}
	m := e2etest.SessionMeta(t, r.Dir, id1)
	if m["strategy"] != "auto-commit" || m["checkpoints_count"] != float64(1) || m["session_id"] != "sess-1" ||
		m["agent"] != "Claude Code" || m["turn_id"] == nil || m["token_usage"] == nil || m["branch"] == nil {
		t.Errorf("turn 1 metadata %v", m)
	}
	if ft, _ := json.Marshal(m["files_touched"]); string(ft) != `["hello.txt"]` {
		t.Errorf("turn 1 files_touched %s", ft)
	}
	if _, ok := m["checkpoint_transcript_start"]; ok {
		t.Errorf("turn 1 starts at the transcript start, got %v", m["checkpoint_transcript_start"])
	}
	shard := "entire/checkpoints/v1:" + id1[:2] + "/" + id1[2:] + "/0/"
	if p := gittest.Git(t, r.Dir, "show", shard+"prompt.txt"); p != "Please add a greeting" {
		t.Errorf("prompt.txt %q", p)
	}
	if c := gittest.Git(t, r.Dir, "show", shard+"context.md"); !strings.Contains(c, "**Commit Message:** Add a greeting") {
		t.Errorf("context.md:\n%s", c)
	}
	live, _ := os.ReadFile(r.Transcript)
	if tr := gittest.Git(t, r.Dir, "show", shard+"full.jsonl"); tr != strings.TrimSuffix(string(live), "\n") {
		t.Errorf("stored transcript differs from the live one")
	}
	if st := gittest.Git(t, r.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status after turn 1:\n%s", st)
	}

	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n", "src/app.go": "package app\n"})
	id2 := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
	if id2 == id1 {
		t.Fatal("turn 2 reused the checkpoint ID")
	}
	m = e2etest.SessionMeta(t, r.Dir, id2)
	if ft, _ := json.Marshal(m["files_touched"]); string(ft) != `["bye.txt","src/app.go"]` {
		t.Errorf("turn 2 files_touched %s", ft)
	}
	if m["checkpoint_transcript_start"] != float64(3) || m["checkpoints_count"] != float64(1) { // turn 1: prompt, Write, answer
		t.Errorf("turn 2 metadata %v", m)
	}
	if n := gittest.Git(t, r.Dir, "rev-list", "--count", base+"..HEAD"); n != "2" {
		t.Errorf("%s commits after two turns, want 2", n)
	}

	// A turn that changes nothing makes no commit and no checkpoint.
	metaTip := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	r.AgentTurn("Explain the code", nil)
	if h := gittest.Git(t, r.Dir, "rev-parse", "HEAD"); h != head {
		t.Errorf("a turn without changes committed %s", h)
	}
	if tip := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1"); tip != metaTip {
		t.Errorf("a turn without changes wrote a checkpoint")
	}

	// A deletion is committed as a deletion.
	if err := os.Remove(r.Dir + "/bye.txt"); err != nil {
		t.Fatal(err)
	}
	r.AgentTurn("Remove the farewell", nil)
	if files := gittest.Git(t, r.Dir, "show", "--format=", "--name-status", "HEAD"); files != "D\tbye.txt" {
		t.Errorf("deletion commit %q", files)
	}
	if st := gittest.Git(t, r.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status at the end:\n%s", st)
	}
	if b := gittest.Git(t, r.Dir, "branch", "--list", "entire/*", "--format=%(refname:short)"); b != "entire/checkpoints/v1" {
		t.Errorf("auto-commit made branches:\n%s", b)
	}
	gittest.Fsck(t, r.Dir)
}
