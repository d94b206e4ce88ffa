package sessions

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestManualCommitSessionEndToEnd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	out, _ := r.Hook("session-start", map[string]any{"source": "startup"})
	if !strings.Contains(out, "Powered by Entire") {
		t.Fatalf("session-start output %q", out)
	}
	r.AgentTurn("Please add a greeting", map[string]string{"hello.txt": "hello\n"})
	r.AgentTurn("Add a farewell too", map[string]string{"bye.txt": "bye\n", "src/app.go": "package app\n"})

	branches := gittest.Git(t, r.Dir, "branch", "--list", "entire/*", "--format=%(refname:short)")
	if !strings.Contains(branches, "-e3b0c4") || !strings.Contains(branches, "entire/checkpoints/v1") {
		t.Fatalf("branches after two turns:\n%s", branches)
	}
	shadow := strings.Fields(strings.ReplaceAll(branches, "entire/checkpoints/v1", ""))[0]
	if log := gittest.Git(t, r.Dir, "log", "--format=%s", shadow); log != "Add a farewell too\nAdd a greeting" {
		t.Errorf("shadow log:\n%s", log)
	}
	files := gittest.Git(t, r.Dir, "ls-tree", "-r", "--name-only", shadow)
	for _, want := range []string{"hello.txt", "bye.txt", "src/app.go", ".entire/metadata/sess-1/full.jsonl", ".entire/metadata/sess-1/prompt.txt"} {
		if !strings.Contains(files, want) {
			t.Errorf("shadow tree lacks %s", want)
		}
	}

	// The user commits the agent's work with the installed hooks.
	gittest.Git(t, r.Dir, "add", "hello.txt", "bye.txt", "src/app.go")
	cmd := e2etest.GitCmd(t, r, "commit", "-q", "-m", "Add greeting and farewell")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B")
	id := ""
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			id = v
		}
	}
	if len(id) != 12 {
		t.Fatalf("commit not linked:\n%s", msg)
	}
	shard := id[:2] + "/" + id[2:]
	meta := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+shard+"/0/metadata.json")
	var m map[string]any
	if err := json.Unmarshal([]byte(meta), &m); err != nil {
		t.Fatal(err)
	}
	if m["session_id"] != "sess-1" || m["checkpoints_count"] != float64(2) || m["agent"] != "Claude Code" {
		t.Errorf("session metadata %s", meta)
	}
	if prompts := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+shard+"/0/prompt.txt"); prompts != "Please add a greeting\n\n---\n\nAdd a farewell too" {
		t.Errorf("prompt.txt %q", prompts)
	}
	transcript := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+shard+"/0/full.jsonl")
	live, _ := os.ReadFile(r.Transcript)
	if transcript != strings.TrimSuffix(string(live), "\n") {
		t.Errorf("stored transcript differs from the live one")
	}
	if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "entire/checkpoints/v1"); subj != "Checkpoint: "+id {
		t.Errorf("metadata commit subject %q", subj)
	}
	if b := gittest.Git(t, r.Dir, "branch", "--list", shadow); b != "" {
		t.Errorf("shadow branch %s not cleaned up", shadow)
	}
	gittest.Fsck(t, r.Dir)
}
