//go:build torture

package torture

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

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
	r := e2etest.NewSessionRepo(t)
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
	if n := e2etest.LongestLine(turn1); n < 60<<20 {
		t.Fatalf("the tool result line is %d bytes", n)
	}
	r.PlayTurn("add a note", map[string]string{"note.txt": "note\n"})
	pts := r.Points()
	if len(pts) != 2 {
		t.Fatalf("rewind points after two turns: %+v\nlog:\n%s", pts, e2etest.LogText(r.Dir))
	}
	first := e2etest.PointOfMessage(t, pts, "decode the dump")
	if _, errOut, code := r.Entire("rewind", "--to", first.ID); code != 0 {
		t.Fatalf("rewind to turn 1: %d %s", code, errOut)
	}
	e2etest.SameTranscript(t, "transcript after rewind to turn 1", r.ReadTranscript(), turn1)

	id := r.CommitAll("decode the dump")
	// The values moved out of the line stay reachable from the
	// checkpoint: gc keeps them, and they are pushed with it.
	gittest.Git(t, r.Dir, "gc", "-q", "--prune=now")
	raw, errOut, code := r.Entire("explain", "--checkpoint", id, "--raw-transcript")
	if code != 0 {
		t.Fatalf("explain --raw-transcript: %d %s", code, errOut)
	}
	e2etest.SameTranscript(t, "explain --raw-transcript", raw, turn1)
	e2etest.AssertStoreClean(t, r.Dir, id)

	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, r.Dir, "init", "-q", "--bare", remote)
	gittest.Git(t, remote, "config", "core.compression", "0")
	gittest.Git(t, r.Dir, "push", "-q", "--no-verify", remote, "main", "feature", "entire/checkpoints/v1")
	clone := e2etest.SecondClone(t, remote)
	projects := t.TempDir()
	env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + projects}
	if _, errOut, code := e2etest.RunEntire(t, clone, env, "", "resume", "feature"); code != 0 {
		t.Fatalf("resume in a second clone: %d %s", code, errOut)
	}
	got, err := os.ReadFile(filepath.Join(projects, "sess-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	e2etest.SameTranscript(t, "transcript resumed in a second clone", string(got), turn1)
	gittest.Fsck(t, clone)
}
