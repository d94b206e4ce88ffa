//go:build torture

package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// entireRefs lists entire's branches with their tips.
func entireRefs(t *testing.T, dir string) string {
	t.Helper()
	return gittest.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/entire/")
}

// Bad input on a hook is logged, the hook exits the way the agent goes on
// (Claude Code: 1, a non-blocking error, never 2; Gemini CLI: 0 with a JSON
// answer), and nothing already written is lost.
func TestE2EBadHookInput(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write kept", map[string]string{"kept.txt": "kept\n"})
	r.MustGit("add", "kept.txt")
	r.MustGit("commit", "-q", "-m", "Kept")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	r.PlayTurn("Write pending", map[string]string{"pending.txt": "pending\n"})
	refs := entireRefs(t, r.Dir)
	state := e2etest.SessionState(t, r.Dir, "sess-1")
	missing := filepath.Join(t.TempDir(), "no-such-transcript.jsonl")
	js := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) }

	cases := []struct {
		name  string
		verb  string // Claude Code verb; Gemini's is mapped below
		stdin string
		fails bool // Claude Code reports a (non-blocking) error
	}{
		{"malformed JSON", "stop", `{"session_id": "sess-1", "transcript_path": `, true},
		{"not an object", "user-prompt-submit", `["sess-1"]`, true},
		{"empty stdin", "stop", "", true},
		{"missing transcript", "stop", js(map[string]any{"session_id": "sess-1", "transcript_path": missing}), true},
		{"unknown session, missing transcript", "stop", js(map[string]any{"session_id": "ghost", "transcript_path": missing}), true},
		{"unknown session ends", "session-end", js(map[string]any{"session_id": "ghost", "transcript_path": r.Transcript}), false},
		{"no session_id", "user-prompt-submit", js(map[string]any{"transcript_path": r.Transcript, "prompt": "hi"}), true},
		{"bad tool_use_id", "post-task", js(map[string]any{"session_id": "sess-1", "transcript_path": r.Transcript, "tool_name": "Agent", "tool_use_id": "../../escape", "tool_response": map[string]any{"agentId": "../x"}}), true},
	}
	geminiVerb := map[string]string{"stop": "after-agent", "user-prompt-submit": "before-agent", "session-end": "session-end", "post-task": "after-tool"}
	for _, tc := range cases {
		out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, tc.stdin, "hooks", "claude-code", tc.verb)
		if tc.fails && (code != 1 || strings.TrimSpace(errOut) == "") {
			t.Errorf("claude %s: exit %d stderr %q, want 1 with a message", tc.name, code, errOut)
		}
		if !tc.fails && code != 0 {
			t.Errorf("claude %s: exit %d stderr %q", tc.name, code, errOut)
		}
		if strings.HasPrefix(strings.TrimSpace(out), "{") {
			t.Errorf("claude %s: JSON on stdout %q", tc.name, out)
		}
		out, errOut, code = e2etest.RunEntire(t, r.Dir, r.Env, tc.stdin, "hooks", "gemini", geminiVerb[tc.verb])
		var v map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
			t.Errorf("gemini %s: exit %d stdout %q stderr %q, want 0 and a JSON object", tc.name, code, out, errOut)
		}
	}
	log := e2etest.LogText(r.Dir)
	for _, want := range []string{`"msg":"bad hook input"`, `"msg":"hook failed"`, "no-such-transcript.jsonl"} {
		if !strings.Contains(log, want) {
			t.Errorf(".entire/logs/entire.log lacks %s:\n%s", want, log)
		}
	}
	if got := entireRefs(t, r.Dir); got != refs {
		t.Errorf("entire branches changed by bad input:\n%s\nwas:\n%s", got, refs)
	}
	if st := e2etest.SessionState(t, r.Dir, "sess-1"); st["checkpoint_count"] != state["checkpoint_count"] || st["base_commit"] != state["base_commit"] {
		t.Errorf("session state changed by bad input: %v", st)
	}

	// A locked index (another git process running): the turn still ends
	// without blocking the agent, and once the lock is gone the commit
	// links everything.
	lock := filepath.Join(r.Dir, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.StartTurn(r.Dir, "Write locked")
	r.WriteFiles(map[string]string{"locked.txt": "locked\n"})
	if _, errOut, code := r.HookIn(r.Dir, "stop", map[string]any{"last_assistant_message": ""}); code != 0 && code != 1 {
		t.Errorf("stop with a locked index: exit %d %s", code, errOut)
	}
	os.Remove(lock)
	r.MustGit("add", "pending.txt", "locked.txt")
	r.MustGit("commit", "-q", "-m", "Pending and locked")
	id2 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id2 == "" {
		t.Fatal("commit after the lock not linked")
	}
	m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id2, "0/metadata.json"))
	if ft := e2etest.AnyStrings(m["files_touched"]); len(ft) != 2 || ft[0] != "locked.txt" || ft[1] != "pending.txt" {
		t.Errorf("files_touched %v", ft)
	}
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")); p != "Write kept" {
		t.Errorf("first checkpoint changed: prompt %q", p)
	}
	e2etest.AssertStoreClean(t, r.Dir, id, id2)
}

// A repository without commits: Claude Code gets a non-blocking error
// saying why, Gemini CLI an exit 0.
func TestE2EHooksBeforeFirstCommit(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	if err := settings.Save(settings.ProjectPath(dir), settings.Defaults()); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	gittest.WriteFile(t, filepath.Dir(tr), "s.jsonl", `{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}`+"\n")
	in := `{"session_id":"s1","transcript_path":"` + tr + `"}`
	_, errOut, code := e2etest.RunEntire(t, dir, []string{"ENTIRE_TEST_TTY=0"}, in, "hooks", "claude-code", "stop")
	if code != 1 || !strings.Contains(errOut, "Entire: skipping checkpoint. Will activate after first commit.") {
		t.Errorf("claude stop without commits: %d %q", code, errOut)
	}
	out, _, code := e2etest.RunEntire(t, dir, nil, in, "hooks", "gemini", "after-agent")
	if code != 0 || !strings.HasPrefix(out, "{") {
		t.Errorf("gemini after-agent without commits: %d %q", code, out)
	}
}

// A broken line in the transcript does not stop the checkpoint, and a
// secret in a prompt reaches neither the shadow commit (its subject is
// derived from the prompt) nor the checkpoint's files.
func TestE2EBrokenTranscriptLineAndSecret(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "123456"
	r.StartTurn(r.Dir, "Use token "+secret+" please")
	f, err := os.OpenFile(r.Transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json at all\n")
	f.Close()
	r.WriteFiles(map[string]string{"s.txt": "s\n"})
	r.EndTurn(r.Dir, "ok")
	shadows := e2etest.ShadowBranches(t, r.Dir)
	if len(shadows) != 1 {
		t.Fatalf("shadow branches %v", shadows)
	}
	if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", shadows[0]); subj != "Use token REDACTED please" {
		t.Errorf("shadow commit subject %q", subj)
	}
	r.MustGit("add", "s.txt")
	r.MustGit("commit", "-q", "-m", "s")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	for _, f := range []string{"0/full.jsonl", "0/prompt.txt", "0/context.md", "0/metadata.json", "metadata.json"} {
		if c := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, f)); strings.Contains(c, secret) {
			t.Errorf("%s holds the secret", f)
		}
	}
	if all := gittest.Git(t, r.Dir, "log", "--all", "--format=%B"); strings.Contains(all, secret) {
		t.Errorf("a commit message holds the secret")
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// With entire disabled the agent hooks do nothing and succeed (Gemini CLI
// still gets its JSON answer), while the git hooks keep linking commits of
// work recorded before.
func TestE2EDisabled(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write d", map[string]string{"d.txt": "d\n"})
	refs := entireRefs(t, r.Dir)
	s := settings.Defaults()
	s.Enabled = false
	if err := settings.Save(settings.ProjectPath(r.Dir), s); err != nil {
		t.Fatal(err)
	}
	r.StartTurnDisabled(t)
	if got := entireRefs(t, r.Dir); got != refs {
		t.Errorf("disabled hooks changed entire's branches:\n%s", got)
	}
	r.MustGit("add", "d.txt")
	r.MustGit("commit", "-q", "-m", "D")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("git hooks stopped linking commits when disabled")
	}
	e2etest.AssertStoreClean(t, r.Dir, id)
}
