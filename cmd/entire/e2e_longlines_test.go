package main

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

// commitAll commits the work tree through the installed hooks and returns
// the checkpoint its trailer names.
func (r *sessionRepo) commitAll(msg string) string {
	r.t.Helper()
	gittest.Git(r.t, r.dir, "add", "-A")
	if out, err := gitCmd(r.t, r, "commit", "-q", "-m", msg).CombinedOutput(); err != nil {
		r.t.Fatalf("git commit: %v\n%s", err, out)
	}
	return trailerID(r.t, r.dir, "HEAD")
}

// readTranscript returns the live transcript.
func (r *sessionRepo) readTranscript() string {
	r.t.Helper()
	b, err := os.ReadFile(r.transcript)
	if err != nil {
		r.t.Fatal(err)
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
	r := newSessionRepo(t)
	r.hook("session-start", map[string]any{"source": "startup"})
	r.playTurn("generate the lockfile", map[string]string{"deps.lock": generatedLockfile(6 << 20)})
	turn1 := r.readTranscript()
	if n := longestLine(turn1); n < 6<<20 {
		t.Fatalf("the Write line is %d bytes", n)
	}
	r.playTurn("add a readme line", map[string]string{"notes.txt": "notes\n"})
	pts := r.points()
	if len(pts) != 2 {
		t.Fatalf("rewind points after two turns: %+v\nlog:\n%s", pts, logText(r.dir))
	}
	first := pointOfMessage(t, pts, "generate the lockfile")
	if _, errOut, code := r.entire("rewind", "--to", first.ID); code != 0 {
		t.Fatalf("rewind to turn 1: %d %s", code, errOut)
	}
	sameTranscript(t, "transcript after rewind to turn 1", r.readTranscript(), turn1)

	// The rewound session goes on, and the commit links a checkpoint
	// that exists and holds the line.
	r.playTurn("one more file", map[string]string{"more.txt": "more\n"})
	id := r.commitAll("lockfile")
	if out, err := gittest.GitErr(r.dir, "cat-file", "-e", cpPath(id, "0/metadata.json")); err != nil {
		t.Fatalf("checkpoint %s of the commit is not stored: %s", id, out)
	}
	raw, errOut, code := r.entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s", code, errOut)
	}
	sameTranscript(t, "explain --raw-transcript", raw, r.readTranscript())
	// As Entire 0.4.x reads it: the chunks joined with "\n", the 6 MB
	// line among them, whole and unchanged.
	var chunks []string
	for _, name := range strings.Fields(gittest.Git(t, r.dir, "ls-tree", "--name-only", cpPath(id, "0/"))) {
		if strings.HasPrefix(name, "full.jsonl") {
			chunks = append(chunks, gittest.Git(t, r.dir, "cat-file", "blob", cpPath(id, "0/"+name)))
		}
	}
	if len(chunks) < 3 || strings.Contains(strings.Join(chunks, " "), "entire-blob:") {
		t.Errorf("checkpoint stores %d chunks", len(chunks))
	}
	sameTranscript(t, "chunks joined with \"\\n\"", strings.Join(chunks, "\n")+"\n", r.readTranscript())
	assertStoreClean(t, r.dir, id)
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
	r := newSessionRepo(t)
	// Git's own compression of 60 MB of random text (gc, push, fetch)
	// would cost more than everything entire does here.
	for _, kv := range [][2]string{{"core.compression", "0"}, {"core.bigFileThreshold", "1m"}} {
		gittest.Git(t, r.dir, "config", kv[0], kv[1])
	}
	gittest.Git(t, r.dir, "checkout", "-q", "-b", "feature")
	r.hook("session-start", map[string]any{"source": "startup"})
	r.startTurn(r.dir, "decode the dump")
	r.appendTranscript(
		map[string]any{"type": "assistant", "uuid": "a-read", "message": map[string]any{"id": "msg_read", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_read", "name": "Read", "input": map[string]any{"file_path": r.dir + "/dump.b64"}}}}},
		map[string]any{"type": "user", "uuid": "u-read", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_read", "content": base64ish(60 << 20)}}}},
	)
	r.writeFiles(map[string]string{"decoded.txt": "decoded\n"})
	r.endTurn(r.dir, "Done: decode the dump")
	turn1 := r.readTranscript()
	if n := longestLine(turn1); n < 60<<20 {
		t.Fatalf("the tool result line is %d bytes", n)
	}
	r.playTurn("add a note", map[string]string{"note.txt": "note\n"})
	pts := r.points()
	if len(pts) != 2 {
		t.Fatalf("rewind points after two turns: %+v\nlog:\n%s", pts, logText(r.dir))
	}
	first := pointOfMessage(t, pts, "decode the dump")
	if _, errOut, code := r.entire("rewind", "--to", first.ID); code != 0 {
		t.Fatalf("rewind to turn 1: %d %s", code, errOut)
	}
	sameTranscript(t, "transcript after rewind to turn 1", r.readTranscript(), turn1)

	id := r.commitAll("decode the dump")
	// The values moved out of the line stay reachable from the
	// checkpoint: gc keeps them, and they are pushed with it.
	gittest.Git(t, r.dir, "gc", "-q", "--prune=now")
	raw, errOut, code := r.entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s", code, errOut)
	}
	sameTranscript(t, "explain --raw-transcript", raw, turn1)
	assertStoreClean(t, r.dir, id)

	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, r.dir, "init", "-q", "--bare", remote)
	gittest.Git(t, remote, "config", "core.compression", "0")
	gittest.Git(t, r.dir, "push", "-q", "--no-verify", remote, "main", "feature", "entire/checkpoints/v1")
	clone := secondClone(t, remote)
	projects := t.TempDir()
	env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + projects}
	if _, errOut, code := runEntire(t, clone, env, "", "resume", "feature"); code != 0 {
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
	r := newSessionRepo(t)
	r.hook("session-start", map[string]any{"source": "startup"})
	r.startTurn(r.dir, "dump the log")
	var log strings.Builder
	for i := 0; log.Len() < 20<<20; i++ {
		fmt.Fprintf(&log, "[%06d] built object %08x in %d ms\n", i, i*2654435761, i%300)
	}
	r.appendTranscript(
		map[string]any{"type": "assistant", "uuid": "a-bash", "message": map[string]any{"id": "msg_bash", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_bash", "name": "Bash", "input": map[string]any{"command": "make"}}}}},
		map[string]any{"type": "user", "uuid": "u-bash", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_bash", "content": log.String()}}}},
	)
	r.writeFiles(map[string]string{"summary.txt": "built\n"})
	common := gittest.Git(t, r.dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	starved, err := session.NewStore(session.Options{GitCommonDir: common}).LockTurnFinish(r.sessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer starved.Close()
	r.appendTranscript(map[string]any{"type": "assistant", "uuid": "a-done", "message": map[string]any{"id": "msg_done", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "Built."}}}})
	// Not through runEntire, which would wait for the finisher.
	b, _ := json.Marshal(map[string]any{"session_id": r.sessionID, "transcript_path": r.transcript, "cwd": r.dir,
		"hook_event_name": "Stop", "last_assistant_message": "Built."})
	stop := exec.Command(entireBin, "hooks", "claude-code", "stop")
	stop.Dir, stop.Env, stop.Stdin = r.dir, append(gittest.Env(t.TempDir()), r.env...), bytes.NewReader(b)
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	gittest.Git(t, r.dir, "add", "-A")
	start := time.Now()
	out, err := gitCmd(t, r, "commit", "-q", "-m", "Add the summary").CombinedOutput()
	if err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	if !strings.Contains(logText(r.dir), "post-commit: condensing in the background") {
		t.Errorf("post-commit condensed while git waited:\n%s", logText(r.dir))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("git commit took %s", d)
	}
	id := trailerID(t, r.dir, "HEAD")
	raw, errOut, code := r.entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s\nlog:\n%s", code, errOut, logText(r.dir))
	}
	sameTranscript(t, "the checkpoint's transcript", raw, r.readTranscript())
	if strings.Contains(errOut, "interrupted") {
		t.Errorf("explain completed the condensation itself: %s", errOut)
	}
}
