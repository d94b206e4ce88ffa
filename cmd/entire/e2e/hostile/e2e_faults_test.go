//go:build torture

package hostile

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// `entire status` shows, per session, the hook failures since its last
// successful hook (count and last message, escaped) and where the log is;
// a successful hook clears them.
func TestE2EStatusShowsHookFailures(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("First turn", map[string]string{"a.txt": "a\n"})
	missing := filepath.Join(t.TempDir(), "gone\x1b[31m.jsonl")
	for range 2 {
		if _, _, code := r.HookIn(r.Dir, "stop", map[string]any{"transcript_path": missing}); code != 1 {
			t.Fatalf("stop with a missing transcript: exit %d", code)
		}
	}
	out, _, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "status")
	if code != 0 {
		t.Fatalf("status exit %d", code)
	}
	logPath := filepath.Join(r.Dir, ".entire", "logs", "entire.log")
	for _, want := range []string{"2 hook failures since the last successful hook", "(last: stop", `gone\x1b[31m.jsonl`, "log: " + logPath} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("status printed a raw escape:\n%q", out)
	}
	r.PlayTurn("Second turn", map[string]string{"b.txt": "b\n"})
	if out, _, _ := e2etest.RunEntire(t, r.Dir, r.Env, "", "status"); strings.Contains(out, "hook failure") {
		t.Errorf("failures still shown after a successful hook:\n%s", out)
	}
}

// A hook that finds its session state unreadable sets it aside, warns, and
// starts the session afresh; `entire doctor` lists the file and discards
// it (asked at a terminal, --discard-corrupt for scripts).
func TestE2ECorruptSessionState(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("First turn", map[string]string{"a.txt": "a\n"})
	common := e2etest.GitCommonDir(t, r.Dir)
	statePath := filepath.Join(common, "entire-sessions", "sess-1.json")
	if err := os.WriteFile(statePath, []byte(`{"session_id": "sess-1", "phase": `), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := r.HookIn(r.Dir, "user-prompt-submit", map[string]any{"prompt": "Second turn"})
	if code != 0 || !strings.Contains(errOut, "could not be read") || !strings.Contains(errOut, "started the session afresh") {
		t.Fatalf("user-prompt-submit over a corrupt state: exit %d, stderr %q", code, errOut)
	}
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u-second", "message": map[string]any{"role": "user", "content": "Second turn"}})
	r.WriteFiles(map[string]string{"b.txt": "b\n"})
	r.EndTurn(r.Dir, "done")
	matches, _ := filepath.Glob(statePath + ".corrupt-*")
	if len(matches) != 1 {
		t.Fatalf("set-aside files %v", matches)
	}
	var st map[string]any
	if b, err := os.ReadFile(statePath); err != nil || json.Unmarshal(b, &st) != nil || st["session_id"] != "sess-1" {
		t.Fatalf("no fresh state after the corrupt one: %v %s", err, b)
	}
	if !strings.Contains(e2etest.LogText(r.Dir), "unreadable session state set aside") {
		t.Errorf("log lacks the warning:\n%s", e2etest.LogText(r.Dir))
	}

	out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "doctor")
	if !strings.Contains(out, matches[0]) || !strings.Contains(errOut, "--discard-corrupt") || code == 0 {
		t.Fatalf("doctor without a terminal: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(matches[0]); err != nil {
		t.Fatalf("doctor discarded without being asked: %v", err)
	}
	out, errOut, code = e2etest.RunEntire(t, r.Dir, r.Env, "", "doctor", "--discard-corrupt")
	if code != 0 || !strings.Contains(out, "Discarded "+matches[0]) {
		t.Fatalf("doctor --discard-corrupt: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(matches[0]); !os.IsNotExist(err) {
		t.Fatalf("set-aside file still there: %v", err)
	}
}

// corruptCheckpointMetadata commits, on the metadata branch, a root
// metadata.json of checkpoint id that is not JSON.
func corruptCheckpointMetadata(t *testing.T, dir, id string) {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	env := append(gittest.Env(t.TempDir()), "GIT_INDEX_FILE="+index)
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("", "read-tree", "entire/checkpoints/v1")
	blob := git(`{"checkpoint_id": "`+id+`", "sessions": [`, "hash-object", "-w", "--stdin")
	git("", "update-index", "--cacheinfo", "100644,"+blob+","+id[:2]+"/"+id[2:]+"/metadata.json")
	tree := git("", "write-tree")
	commit := git("Checkpoint: "+id+"\n", "commit-tree", tree, "-p", "entire/checkpoints/v1")
	git("", "update-ref", "refs/heads/entire/checkpoints/v1", commit)
}

// A checkpoint whose metadata.json on the metadata branch is corrupt is
// named by explain, rewind --list, rewind --to and doctor, not passed over
// as if there were none or as one of another branch.
func TestE2ECorruptCheckpointMetadataReported(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write a", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	corruptCheckpointMetadata(t, r.Dir, id)
	want := "checkpoint " + id

	out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "explain", "--no-pager")
	if !strings.Contains(out+errOut, want) || !strings.Contains(out+errOut, "metadata.json") {
		t.Errorf("explain (list): exit %d, does not name the corrupt checkpoint:\n%s%s", code, out, errOut)
	}
	out, errOut, code = e2etest.RunEntire(t, r.Dir, r.Env, "", "explain", "--no-pager", "--commit", "HEAD")
	if code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("explain --commit: exit %d:\n%s%s", code, out, errOut)
	}
	out, errOut, code = e2etest.RunEntire(t, r.Dir, r.Env, "", "rewind", "--list")
	var pts []any
	if code != 0 || json.Unmarshal([]byte(out), &pts) != nil || !strings.Contains(errOut, want) || !strings.Contains(errOut, "metadata.json") {
		t.Errorf("rewind --list: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	_, errOut, code = e2etest.RunEntire(t, r.Dir, r.Env, "", "rewind", "--to", head, "--dry-run")
	if code == 0 || !strings.Contains(errOut, want) || strings.Contains(errOut, "another branch") {
		t.Errorf("rewind --to the linked commit: exit %d, stderr %q", code, errOut)
	}
	out, errOut, _ = e2etest.RunEntire(t, r.Dir, r.Env, "", "doctor")
	if !strings.Contains(out+errOut, want) {
		t.Errorf("doctor does not name the corrupt checkpoint:\n%s%s", out, errOut)
	}
}
