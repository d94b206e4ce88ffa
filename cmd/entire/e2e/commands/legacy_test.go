package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// legacyID is the checkpoint written by hand in the Entire CLI 0.4.x layout.
const legacyID = "abcdef012345"

// Transcripts of the hand-written checkpoint: a legacy full.log (slot 0), a
// Claude transcript stored in two chunks (slot 1, scope starts at line 2),
// and a Gemini CLI session document (slot 2).
const (
	legacyLog = `{"type":"user","uuid":"o1","timestamp":"2025-06-01T10:00:00Z","message":{"role":"user","content":"Old session prompt"}}
{"type":"assistant","uuid":"o2","timestamp":"2025-06-01T10:00:05Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Old answer"}],"usage":{"input_tokens":7,"output_tokens":3}}}
`
	chunk0 = `{"type":"user","uuid":"n1","timestamp":"2025-06-02T10:00:00Z","message":{"role":"user","content":"Earlier turn"}}
{"type":"assistant","uuid":"n2","timestamp":"2025-06-02T10:00:01Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Earlier answer"}]}}`
	chunk1 = `{"type":"user","uuid":"n3","timestamp":"2025-06-02T11:00:00Z","message":{"role":"user","content":"Add the parser"}}
{"type":"assistant","uuid":"n4","timestamp":"2025-06-02T11:00:09Z","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Adding it."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"parse.go"}}]}}`
	geminiDoc = `{
  "sessionId": "gem-sess-0001",
  "messages": [
    {"id": "g1", "type": "user", "timestamp": "2025-06-03T09:00:00Z", "content": "Explain the build"},
    {"id": "g2", "type": "gemini", "timestamp": "2025-06-03T09:00:04Z", "content": "It uses make.", "toolCalls": [{"id": "c1", "name": "read_file", "args": {"path": "Makefile"}}]}
  ]
}`
)

// writeLegacyCheckpoint writes checkpoint legacyID onto the metadata branch
// of dir exactly as Entire CLI 0.4.x laid it out (SPEC 3.7), and links it
// from a new commit on branch "legacy".
func writeLegacyCheckpoint(t *testing.T, dir string) {
	t.Helper()
	shard := "ab/cdef012345"
	files := map[string]string{
		shard + "/metadata.json": `{"cli_version":"0.4.2","checkpoint_id":"` + legacyID + `","strategy":"manual-commit","branch":"legacy","checkpoints_count":4,
"files_touched":["parse.go"],"sessions":[
{"metadata":"/` + shard + `/0/metadata.json","transcript":"/` + shard + `/0/full.log","context":"","content_hash":"","prompt":"/` + shard + `/0/prompt.txt"},
{"metadata":"/` + shard + `/1/metadata.json","transcript":"/` + shard + `/1/full.jsonl","context":"/` + shard + `/1/context.md","content_hash":"/` + shard + `/1/content_hash.txt","prompt":"/` + shard + `/1/prompt.txt"},
{"metadata":"/` + shard + `/2/metadata.json","transcript":"/` + shard + `/2/full.jsonl","context":"","content_hash":"","prompt":""}],
"token_usage":{"input_tokens":107,"cache_creation_tokens":0,"cache_read_tokens":0,"output_tokens":13,"api_call_count":2}}`,
		shard + "/0/metadata.json":    `{"cli_version":"0.4.0","checkpoint_id":"` + legacyID + `","session_id":"old-sess","strategy":"manual-commit","created_at":"2025-06-01T10:01:00Z","branch":"legacy","checkpoints_count":1,"files_touched":[],"agent":"Claude Code"}`,
		shard + "/0/full.log":         legacyLog,
		shard + "/0/prompt.txt":       "Old session prompt",
		shard + "/1/metadata.json":    `{"cli_version":"0.4.2","checkpoint_id":"` + legacyID + `","session_id":"new-sess","strategy":"manual-commit","created_at":"2025-06-02T11:01:00Z","branch":"legacy","checkpoints_count":2,"files_touched":["parse.go"],"agent":"Claude Code","checkpoint_transcript_start":2,"transcript_lines_at_start":2,"transcript_path":".claude/projects/-home-someone-else-repo/new-sess.jsonl","token_usage":{"input_tokens":100,"cache_creation_tokens":0,"cache_read_tokens":0,"output_tokens":10,"api_call_count":1}}`,
		shard + "/1/full.jsonl":       chunk0,
		shard + "/1/full.jsonl.001":   chunk1,
		shard + "/1/content_hash.txt": "sha256:0000",
		shard + "/1/prompt.txt":       "Earlier turn\n\n---\n\nAdd the parser",
		shard + "/1/context.md":       "# Session Context\n",
		shard + "/2/metadata.json":    `{"checkpoint_id":"` + legacyID + `","session_id":"gem-sess-0001","strategy":"manual-commit","created_at":"2025-06-03T09:01:00Z","checkpoints_count":1,"files_touched":[],"agent":"Gemini CLI"}`,
		shard + "/2/full.jsonl":       geminiDoc,
	}
	work := t.TempDir()
	for p, c := range files {
		gittest.WriteFile(t, work, p, c)
	}
	git := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gittest.Env(t.TempDir()), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	git(idx, "--work-tree="+work, "add", "-A")
	tree := git(idx, "write-tree")
	root := git(nil, "commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "-m", "Initialize sessions branch")
	meta := git(nil, "commit-tree", tree, "-p", root, "-m", "Checkpoint: "+legacyID+"\n\nEntire-Session: new-sess\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\n")
	git(nil, "update-ref", "refs/heads/entire/checkpoints/v1", meta)
	git(nil, "checkout", "-q", "-b", "legacy")
	gittest.WriteFile(t, dir, "parse.go", "package parse\n")
	git(nil, "add", "parse.go")
	git(nil, "commit", "-q", "--no-verify", "-m", "Add the parser\n\nEntire-Checkpoint: "+legacyID)
}

func TestLegacyCheckpointExplainAndResume(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	writeLegacyCheckpoint(t, dir)
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "explain", "--commit", "HEAD", "--no-pager")
	if code != 0 {
		t.Fatalf("explain: %d %s", code, errOut)
	}
	for _, want := range []string{
		"Checkpoint: " + legacyID + "\nSessions: (3)\n  old-sess (Claude Code)\n  new-sess (Claude Code)\n  gem-sess-0001 (Gemini CLI)\nCreated: 2025-06-01 10:01:00\n",
		"Tokens: 120 (input 107, cache write 0, cache read 0, output 13; 2 API calls)\n",
		"Intent: Explain the build\n",
		"Prompts: (3)\n  1. Old session prompt\n  2. Add the parser\n  3. Explain the build\n",
		"Files: (1)\n  - parse.go\n",
		"Transcript (checkpoint scope) session old-sess\n[User] Old session prompt\n\n[Assistant] Old answer\n",
		"Transcript (checkpoint scope) session new-sess\n[User] Add the parser\n\n[Assistant] Adding it.\n[Tool] Bash: go test ./...\n[Tool] Read: parse.go\n",
		"Transcript (checkpoint scope) session gem-sess-0001\n[User] Explain the build\n\n[Assistant] It uses make.\n[Tool] read_file: Makefile\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	if full, _, _ := e2etest.RunEntire(t, dir, nil, "", "explain", "-c", legacyID, "--full"); !strings.Contains(full, "Transcript (full session) session new-sess\n[User] Earlier turn\n") {
		t.Errorf("--full:\n%s", full)
	}
	if list, _, _ := e2etest.RunEntire(t, dir, nil, "", "explain"); !strings.Contains(list, "Checkpoints: 1\n\n["+legacyID+"] \"Earlier turn\"\n") {
		t.Errorf("list:\n%s", list)
	}

	gittest.Git(t, dir, "checkout", "-q", "main")
	claude, gemini := t.TempDir(), t.TempDir()
	env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + claude, "ENTIRE_TEST_GEMINI_PROJECT_DIR=" + gemini}
	_, errOut, code = e2etest.RunEntire(t, dir, env, "", "resume", "legacy")
	if code != 0 {
		t.Fatalf("resume: %d %s", code, errOut)
	}
	for path, want := range map[string]string{
		filepath.Join(claude, "old-sess.jsonl"):                         legacyLog,
		filepath.Join(claude, "new-sess.jsonl"):                         chunk0 + "\n" + chunk1 + "\n",
		filepath.Join(gemini, "session-1970-01-01T00-00-gem-sess.json"): "",
	} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("not restored: %v", err)
			continue
		}
		if want != "" && string(got) != want {
			t.Errorf("%s:\n%q\nwant\n%q", path, got, want)
		}
	}
	if !strings.Contains(errOut, "Restored 3 sessions. To continue, run:\n  claude -r old-sess  # Old session prompt\n  claude -r new-sess  # Add the parser\n  gemini --resume gem-sess-0001 (most recent)\n") {
		t.Errorf("resume output:\n%s", errOut)
	}

	// rewind --logs-only of the same checkpoint writes each session where
	// its own agent reads it: the Gemini one not into Claude's directory.
	for _, p := range []string{filepath.Join(claude, "gem-sess-0001.jsonl"), filepath.Join(gemini, "session-1970-01-01T00-00-gem-sess.json")} {
		os.Remove(p)
	}
	gittest.Git(t, dir, "checkout", "-q", "legacy")
	commit := gittest.Git(t, dir, "rev-parse", "HEAD")
	if _, errOut, code := e2etest.RunEntire(t, dir, env, "", "rewind", "--to", commit, "--logs-only"); code != 0 {
		t.Fatalf("rewind --logs-only: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(claude, "gem-sess-0001.jsonl")); err == nil {
		t.Error("the Gemini session was written into Claude's directory")
	}
}
