//go:build torture

package torture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// generatedLockfile returns about n bytes of a generated lockfile: plain text that
// no redaction rule touches, with newlines that JSON escapes.
func generatedLockfile(n int) string {
	var b strings.Builder
	b.Grow(n + 64)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\"package-%d@^%d.%d.0\":\n  version \"%d.%d.%d\"\n", i, i%7, i%11, i%7, i%11, i%13)
	}
	return b.String()
}

func TestLongLineSixMB(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.PlayTurn("generate the lockfile", map[string]string{"deps.lock": generatedLockfile(6 << 20)})
	turn1 := r.ReadTranscript()
	if n := e2etest.LongestLine(turn1); n < 6<<20 {
		t.Fatalf("the Write line is %d bytes", n)
	}
	r.PlayTurn("add a readme line", map[string]string{"notes.txt": "notes\n"})
	pts := r.Points()
	if len(pts) != 2 {
		t.Fatalf("rewind points after two turns: %+v\nlog:\n%s", pts, e2etest.LogText(r.Dir))
	}
	first := e2etest.PointOfMessage(t, pts, "generate the lockfile")
	if _, errOut, code := r.Entire("rewind", "--to", first.ID); code != 0 {
		t.Fatalf("rewind to turn 1: %d %s", code, errOut)
	}
	e2etest.SameTranscript(t, "transcript after rewind to turn 1", r.ReadTranscript(), turn1)

	// The rewound session goes on, and the commit links a checkpoint
	// that exists and holds the line.
	r.PlayTurn("one more file", map[string]string{"more.txt": "more\n"})
	id := r.CommitAll("lockfile")
	if out, err := gittest.GitErr(r.Dir, "cat-file", "-e", e2etest.CpPath(id, "0/metadata.json")); err != nil {
		t.Fatalf("checkpoint %s of the commit is not stored: %s", id, out)
	}
	raw, errOut, code := r.Entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s", code, errOut)
	}
	e2etest.SameTranscript(t, "explain --raw-transcript", raw, r.ReadTranscript())
	// As Entire 0.4.x reads it: the chunks joined with "\n", the 6 MB
	// line among them, whole and unchanged.
	var chunks []string
	for _, name := range strings.Fields(gittest.Git(t, r.Dir, "ls-tree", "--name-only", e2etest.CpPath(id, "0/"))) {
		if strings.HasPrefix(name, "full.jsonl") {
			chunks = append(chunks, gittest.Git(t, r.Dir, "cat-file", "blob", e2etest.CpPath(id, "0/"+name)))
		}
	}
	if len(chunks) < 3 || strings.Contains(strings.Join(chunks, " "), "entire-blob:") {
		t.Errorf("checkpoint stores %d chunks", len(chunks))
	}
	e2etest.SameTranscript(t, "chunks joined with \"\\n\"", strings.Join(chunks, "\n")+"\n", r.ReadTranscript())
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// A commit made while a turn end of tens of megabytes is still being
// stored does not wait for it: post-commit hands the condensation to a
// process of its own, and what reads checkpoints waits for that. Here the
// turn's finisher is starved for good (the test holds the session's finish
// lock, so none starts), and the condensation writes the step itself.
func TestCommitAfterALargeTurnCondensesInTheBackground(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.StartTurn(r.Dir, "dump the log")
	var log strings.Builder
	for i := 0; log.Len() < 20<<20; i++ {
		fmt.Fprintf(&log, "[%06d] built object %08x in %d ms\n", i, i*2654435761, i%300)
	}
	r.AppendTranscript(
		map[string]any{"type": "assistant", "uuid": "a-bash", "message": map[string]any{"id": "msg_bash", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_bash", "name": "Bash", "input": map[string]any{"command": "make"}}}}},
		map[string]any{"type": "user", "uuid": "u-bash", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_bash", "content": log.String()}}}},
	)
	r.WriteFiles(map[string]string{"summary.txt": "built\n"})
	common := e2etest.GitCommonDir(t, r.Dir)
	starved, err := session.NewStore(session.Options{GitCommonDir: common}).LockTurnFinish(r.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer starved.Close()
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "a-done", "message": map[string]any{"id": "msg_done", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "Built."}}}})
	// Not through RunEntire, which would wait for the finisher.
	b, _ := json.Marshal(map[string]any{"session_id": r.SessionID, "transcript_path": r.Transcript, "cwd": r.Dir,
		"hook_event_name": "Stop", "last_assistant_message": "Built."})
	stop := exec.Command(e2etest.EntireBin(), "hooks", "claude-code", "stop")
	stop.Dir, stop.Env, stop.Stdin = r.Dir, append(gittest.Env(t.TempDir()), r.Env...), bytes.NewReader(b)
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	gittest.Git(t, r.Dir, "add", "-A")
	start := time.Now()
	out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "Add the summary").CombinedOutput()
	if err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	if !strings.Contains(e2etest.LogText(r.Dir), "post-commit: condensing in the background") {
		t.Errorf("post-commit condensed while git waited:\n%s", e2etest.LogText(r.Dir))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("git commit took %s", d)
	}
	id := e2etest.TrailerID(t, r.Dir, "HEAD")
	raw, errOut, code := r.Entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s\nlog:\n%s", code, errOut, e2etest.LogText(r.Dir))
	}
	e2etest.SameTranscript(t, "the checkpoint's transcript", raw, r.ReadTranscript())
	if strings.Contains(errOut, "interrupted") {
		t.Errorf("explain completed the condensation itself: %s", errOut)
	}
}
