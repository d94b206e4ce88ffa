package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Transcript lines longer than the 4 MB store chunk (a Write of a generated
// lockfile, an image read in base64) and longer than SPEC 4.5's 50 MiB
// chunk limit: every hook after them keeps working, and every reader gives
// the line back byte for byte.

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

// CommitAll commits the work tree through the installed hooks and returns
// the checkpoint its trailer names.
func (r *SessionRepo) CommitAll(msg string) string {
	r.T.Helper()
	gittest.Git(r.T, r.Dir, "add", "-A")
	if out, err := GitCmd(r.T, r, "commit", "-q", "-m", msg).CombinedOutput(); err != nil {
		r.T.Fatalf("git commit: %v\n%s", err, out)
	}
	return trailerID(r.T, r.Dir, "HEAD")
}

// ReadTranscript returns the live transcript.
func (r *SessionRepo) ReadTranscript() string {
	r.T.Helper()
	b, err := os.ReadFile(r.Transcript)
	if err != nil {
		r.T.Fatal(err)
	}
	return string(b)
}

// sameTranscript reports a difference between two transcripts without
// printing megabytes.
func sameTranscript(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes, want %d; first difference at byte %d: %q vs %q", what, len(got), len(want), i,
		got[i:min(len(got), i+80)], want[i:min(len(want), i+80)])
}

func longestLine(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, len(l))
	}
	return n
}

func TestLongLineSixMB(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.PlayTurn("generate the lockfile", map[string]string{"deps.lock": generatedLockfile(6 << 20)})
	turn1 := r.ReadTranscript()
	if n := longestLine(turn1); n < 6<<20 {
		t.Fatalf("the Write line is %d bytes", n)
	}
	r.PlayTurn("add a readme line", map[string]string{"notes.txt": "notes\n"})
	pts := r.Points()
	if len(pts) != 2 {
		t.Fatalf("rewind points after two turns: %+v\nlog:\n%s", pts, LogText(r.Dir))
	}
	first := pointOfMessage(t, pts, "generate the lockfile")
	if _, errOut, code := r.Entire("rewind", "--to", first.ID); code != 0 {
		t.Fatalf("rewind to turn 1: %d %s", code, errOut)
	}
	sameTranscript(t, "transcript after rewind to turn 1", r.ReadTranscript(), turn1)

	// The rewound session goes on, and the commit links a checkpoint
	// that exists and holds the line.
	r.PlayTurn("one more file", map[string]string{"more.txt": "more\n"})
	id := r.CommitAll("lockfile")
	if out, err := gittest.GitErr(r.Dir, "cat-file", "-e", CpPath(id, "0/metadata.json")); err != nil {
		t.Fatalf("checkpoint %s of the commit is not stored: %s", id, out)
	}
	raw, errOut, code := r.Entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s", code, errOut)
	}
	sameTranscript(t, "explain --raw-transcript", raw, r.ReadTranscript())
	// As Entire 0.4.x reads it: the chunks joined with "\n", the 6 MB
	// line among them, whole and unchanged.
	var chunks []string
	for _, name := range strings.Fields(gittest.Git(t, r.Dir, "ls-tree", "--name-only", CpPath(id, "0/"))) {
		if strings.HasPrefix(name, "full.jsonl") {
			chunks = append(chunks, gittest.Git(t, r.Dir, "cat-file", "blob", CpPath(id, "0/"+name)))
		}
	}
	if len(chunks) < 3 || strings.Contains(strings.Join(chunks, " "), "entire-blob:") {
		t.Errorf("checkpoint stores %d chunks", len(chunks))
	}
	sameTranscript(t, "chunks joined with \"\\n\"", strings.Join(chunks, "\n")+"\n", r.ReadTranscript())
	AssertStoreClean(t, r.Dir, id)
}

// base64ish returns n bytes of the base64 alphabet, the same every time.
func base64ish(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = alphabet[x&63]
	}
	return string(b)
}

func TestLongLineSixtyMB(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
	// Git's own compression of 60 MB of random text (gc, push, fetch)
	// would cost more than everything entire does here.
	for _, kv := range [][2]string{{"core.compression", "0"}, {"core.bigFileThreshold", "1m"}} {
		gittest.Git(t, r.Dir, "config", kv[0], kv[1])
	}
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.StartTurn(r.Dir, "decode the dump")
	r.AppendTranscript(
		map[string]any{"type": "assistant", "uuid": "a-read", "message": map[string]any{"id": "msg_read", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_read", "name": "Read", "input": map[string]any{"file_path": r.Dir + "/dump.b64"}}}}},
		map[string]any{"type": "user", "uuid": "u-read", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_read", "content": base64ish(60 << 20)}}}},
	)
	r.WriteFiles(map[string]string{"decoded.txt": "decoded\n"})
	r.EndTurn(r.Dir, "Done: decode the dump")
	turn1 := r.ReadTranscript()
	if n := longestLine(turn1); n < 60<<20 {
		t.Fatalf("the tool result line is %d bytes", n)
	}
	r.PlayTurn("add a note", map[string]string{"note.txt": "note\n"})
	pts := r.Points()
	if len(pts) != 2 {
		t.Fatalf("rewind points after two turns: %+v\nlog:\n%s", pts, LogText(r.Dir))
	}
	first := pointOfMessage(t, pts, "decode the dump")
	if _, errOut, code := r.Entire("rewind", "--to", first.ID); code != 0 {
		t.Fatalf("rewind to turn 1: %d %s", code, errOut)
	}
	sameTranscript(t, "transcript after rewind to turn 1", r.ReadTranscript(), turn1)

	id := r.CommitAll("decode the dump")
	// The values moved out of the line stay reachable from the
	// checkpoint: gc keeps them, and they are pushed with it.
	gittest.Git(t, r.Dir, "gc", "-q", "--prune=now")
	raw, errOut, code := r.Entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s", code, errOut)
	}
	sameTranscript(t, "explain --raw-transcript", raw, turn1)
	AssertStoreClean(t, r.Dir, id)

	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, r.Dir, "init", "-q", "--bare", remote)
	gittest.Git(t, remote, "config", "core.compression", "0")
	gittest.Git(t, r.Dir, "push", "-q", "--no-verify", remote, "main", "feature", "entire/checkpoints/v1")
	clone := secondClone(t, remote)
	projects := t.TempDir()
	env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + projects}
	if _, errOut, code := RunEntire(t, clone, env, "", "resume", "feature"); code != 0 {
		t.Fatalf("resume in a second clone: %d %s", code, errOut)
	}
	got, err := os.ReadFile(filepath.Join(projects, "sess-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sameTranscript(t, "transcript resumed in a second clone", string(got), turn1)
	gittest.Fsck(t, clone)
}

// A commit made while a turn end of tens of megabytes is still being
// stored does not wait for it: post-commit hands the condensation to a
// process of its own, and what reads checkpoints waits for that. Here the
// turn's finisher is starved for good (the test holds the session's finish
// lock, so none starts), and the condensation writes the step itself.
func TestCommitAfterALargeTurnCondensesInTheBackground(t *testing.T) {
	t.Parallel()
	r := NewSessionRepo(t)
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
	common := gittest.Git(t, r.Dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	starved, err := session.NewStore(session.Options{GitCommonDir: common}).LockTurnFinish(r.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer starved.Close()
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "a-done", "message": map[string]any{"id": "msg_done", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "Built."}}}})
	// Not through runEntire, which would wait for the finisher.
	b, _ := json.Marshal(map[string]any{"session_id": r.SessionID, "transcript_path": r.Transcript, "cwd": r.Dir,
		"hook_event_name": "Stop", "last_assistant_message": "Built."})
	stop := exec.Command(entireBin, "hooks", "claude-code", "stop")
	stop.Dir, stop.Env, stop.Stdin = r.Dir, append(gittest.Env(t.TempDir()), r.Env...), bytes.NewReader(b)
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	gittest.Git(t, r.Dir, "add", "-A")
	start := time.Now()
	out, err := GitCmd(t, r, "commit", "-q", "-m", "Add the summary").CombinedOutput()
	if err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	if !strings.Contains(LogText(r.Dir), "post-commit: condensing in the background") {
		t.Errorf("post-commit condensed while git waited:\n%s", LogText(r.Dir))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("git commit took %s", d)
	}
	id := trailerID(t, r.Dir, "HEAD")
	raw, errOut, code := r.Entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s\nlog:\n%s", code, errOut, LogText(r.Dir))
	}
	sameTranscript(t, "the checkpoint's transcript", raw, r.ReadTranscript())
	if strings.Contains(errOut, "interrupted") {
		t.Errorf("explain completed the condensation itself: %s", errOut)
	}
}
