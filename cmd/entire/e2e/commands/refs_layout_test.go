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

// The repository of these tests is built by hand to the letter of SPEC
// 10.3: a checkpoint with a ULID stored as its own ref, the checkpoint at
// the root of the ref's tree (paths in its root metadata.json from the
// tree root), with a file today's Entire writes and this tool does not
// (transcript.jsonl); a 12-hex checkpoint on the v1 branch; and a commit
// carrying both trailers.
const (
	refsULID  = "01K9TQ8ZP7X3F5M2WVJ4CNRB6D"
	refsHex   = "a3b2c4d5e6f7"
	refsShard = "6D" // the ULID's last two characters
)

// gitIn runs git in dir with extra environment and returns its output.
func gitIn(t *testing.T, dir string, env []string, args ...string) string {
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

// treeOf writes files into a tree object of dir's repository.
func treeOf(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	work := t.TempDir()
	for p, c := range files {
		gittest.WriteFile(t, work, p, c)
	}
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	gitIn(t, dir, idx, "--work-tree="+work, "add", "-A")
	return gitIn(t, dir, idx, "write-tree")
}

// claudeLines is a two-line Claude Code transcript of one prompt.
func claudeLines(prompt, answer string) string {
	return `{"type":"user","uuid":"u-` + prompt[:4] + `","timestamp":"2026-11-02T10:00:00Z","message":{"role":"user","content":"` + prompt + `"}}
{"type":"assistant","uuid":"a-` + prompt[:4] + `","timestamp":"2026-11-02T10:00:05Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"` + answer + `"}],"usage":{"input_tokens":10,"output_tokens":2}}}
`
}

// writeRefsLayout builds the repository of SPEC 10.3 in dir: the ULID's
// ref, the hex checkpoint on the v1 branch, and on branch "refs-feature"
// a commit carrying both trailers (with ulidOnly, only the ULID's).
func writeRefsLayout(t *testing.T, dir string, ulidOnly bool) {
	t.Helper()
	ulidTree := treeOf(t, dir, map[string]string{
		"metadata.json": `{"cli_version":"0.11.0","checkpoint_id":"` + refsULID + `","strategy":"manual-commit","branch":"refs-feature","checkpoints_count":1,
"files_touched":["calc.go"],"sessions":[{"metadata":"/0/metadata.json","transcript":"/0/full.jsonl","context":"","content_hash":"/0/content_hash.txt","prompt":"/0/prompt.txt"}],
"token_usage":{"input_tokens":10,"cache_creation_tokens":0,"cache_read_tokens":0,"output_tokens":2,"api_call_count":1}}`,
		"0/metadata.json":    `{"cli_version":"0.11.0","checkpoint_id":"` + refsULID + `","session_id":"ulid-sess","strategy":"manual-commit","created_at":"2026-11-02T10:01:00Z","branch":"refs-feature","checkpoints_count":1,"files_touched":["calc.go"],"agent":"Claude Code","kind":"agent","checkpoint_transcript_start":0,"compact_transcript_start":0,"summary":{"intent":"Add calc","outcome":"Added","learnings":[],"friction":[],"open_items":[]},"token_usage":{"input_tokens":10,"cache_creation_tokens":0,"cache_read_tokens":0,"output_tokens":2,"api_call_count":1}}`,
		"0/full.jsonl":       claudeLines("Write the calculator", "Calculator written."),
		"0/prompt.txt":       "Write the calculator",
		"0/content_hash.txt": "sha256:0000",
		"0/transcript.jsonl": `{"v":1,"agent":"claude-code","cli_version":"0.11.0","type":"user","ts":"2026-11-02T10:00:00Z","id":"u-Writ","content":"Write the calculator"}` + "\n",
	})
	first := gitIn(t, dir, nil, "commit-tree", ulidTree, "-m", "Checkpoint: "+refsULID+"\n\nEntire-Session: ulid-sess\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\n")
	gitIn(t, dir, nil, "update-ref", "refs/entire/checkpoints/"+refsShard+"/"+refsULID, first)

	hexShard := refsHex[:2] + "/" + refsHex[2:]
	v1Tree := treeOf(t, dir, map[string]string{
		hexShard + "/metadata.json": `{"cli_version":"0.4.2","checkpoint_id":"` + refsHex + `","strategy":"manual-commit","branch":"refs-feature","checkpoints_count":1,"files_touched":["calc.go"],
"sessions":[{"metadata":"/` + hexShard + `/0/metadata.json","transcript":"/` + hexShard + `/0/full.jsonl","context":"","content_hash":"","prompt":"/` + hexShard + `/0/prompt.txt"}]}`,
		hexShard + "/0/metadata.json": `{"cli_version":"0.4.2","checkpoint_id":"` + refsHex + `","session_id":"hex-sess","strategy":"manual-commit","created_at":"2026-11-01T09:01:00Z","checkpoints_count":1,"files_touched":["calc.go"],"agent":"Claude Code"}`,
		hexShard + "/0/full.jsonl":    claudeLines("Sketch the calculator", "Sketched."),
		hexShard + "/0/prompt.txt":    "Sketch the calculator",
	})
	v1 := gitIn(t, dir, nil, "commit-tree", v1Tree, "-m", "Checkpoint: "+refsHex)
	gitIn(t, dir, nil, "update-ref", "refs/heads/entire/checkpoints/v1", v1)

	gitIn(t, dir, nil, "checkout", "-q", "-b", "refs-feature")
	gittest.WriteFile(t, dir, "calc.go", "package calc\n")
	gitIn(t, dir, nil, "add", "calc.go")
	msg := "Add the calculator\n\nEntire-Checkpoint: " + refsULID
	if !ulidOnly {
		msg += "\nEntire-Checkpoint: " + refsHex
	}
	gitIn(t, dir, nil, "commit", "-q", "--no-verify", "-m", msg)
	gitIn(t, dir, nil, "checkout", "-q", "main")
}

// TestRefsLayoutReadable: explain reads a commit with a ULID and a hex
// trailer (the ref first, then the v1 branch), a checkpoint by its ULID,
// and the branch's list.
func TestRefsLayoutReadable(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	writeRefsLayout(t, dir, false)
	gitIn(t, dir, nil, "checkout", "-q", "refs-feature")
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "explain", "--commit", "HEAD", "--no-pager")
	if code != 0 {
		t.Fatalf("explain --commit: %d %s", code, errOut)
	}
	for _, want := range []string{"Checkpoint: " + refsULID, "ulid-sess (Claude Code)", "Write the calculator",
		"Checkpoint: " + refsHex, "hex-sess (Claude Code)", "Sketch the calculator"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --commit lacks %q:\n%s", want, out)
		}
	}
	full, _, code := e2etest.RunEntire(t, dir, nil, "", "explain", "-c", refsULID, "--full", "--no-pager")
	if code != 0 || !strings.Contains(full, "[User] Write the calculator\n\n[Assistant] Calculator written.") {
		t.Errorf("explain -c %s: %d\n%s", refsULID, code, full)
	}
	if list, _, _ := e2etest.RunEntire(t, dir, nil, "", "explain", "--no-pager"); !strings.Contains(list, "["+refsULID+"]") {
		t.Errorf("list lacks the ULID checkpoint:\n%s", list)
	}
}

// TestRefsLayoutResumeInFreshClone: a `git clone` fetches no
// refs/entire/*; resume fetches the branch's checkpoint by its one ref
// (and, for a hex trailer, the v1 branch) and restores the sessions.
func TestRefsLayoutResumeInFreshClone(t *testing.T) {
	t.Parallel()
	for _, ulidOnly := range []bool{true, false} {
		name := "both trailers"
		if ulidOnly {
			name = "one ULID"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			writeRefsLayout(t, dir, ulidOnly)
			bare := filepath.Join(t.TempDir(), "remote.git")
			gitIn(t, dir, nil, "init", "-q", "--bare", bare)
			gitIn(t, dir, nil, "push", "-q", "--no-verify", bare, "main", "refs-feature", "entire/checkpoints/v1", "refs/entire/checkpoints/*:refs/entire/checkpoints/*")
			clone := filepath.Join(t.TempDir(), "clone")
			gitIn(t, filepath.Dir(clone), nil, "clone", "-q", bare, clone)
			if refs := gitIn(t, clone, nil, "for-each-ref", "refs/entire/"); refs != "" {
				t.Fatalf("git clone fetched %s", refs)
			}
			projects := t.TempDir()
			env := []string{"ENTIRE_TEST_CLAUDE_PROJECT_DIR=" + projects}
			_, errOut, code := e2etest.RunEntire(t, clone, env, "", "resume", "refs-feature")
			if code != 0 {
				t.Fatalf("resume: %d\n%s", code, errOut)
			}
			got, err := os.ReadFile(filepath.Join(projects, "ulid-sess.jsonl"))
			if err != nil || string(got) != claudeLines("Write the calculator", "Calculator written.") {
				t.Errorf("ulid-sess restored %q (%v)", got, err)
			}
			if refs := gitIn(t, clone, nil, "for-each-ref", "--format=%(refname)", "refs/entire/"); refs != "refs/entire/checkpoints/"+refsShard+"/"+refsULID {
				t.Errorf("resume fetched refs %q, want the one checkpoint's", refs)
			}
			if v1 := gitIn(t, clone, nil, "for-each-ref", "refs/heads/entire/checkpoints/v1"); ulidOnly && v1 != "" {
				t.Errorf("resume of a ULID's commit made the v1 branch:\n%s", v1)
			}
			if !ulidOnly {
				if _, err := os.Stat(filepath.Join(projects, "hex-sess.jsonl")); err != nil {
					t.Errorf("hex-sess not restored: %v\n%s", err, errOut)
				}
			}
			if out, _, code := e2etest.RunEntire(t, clone, env, "", "explain", "--commit", "HEAD", "--no-pager"); code != 0 || !strings.Contains(out, "ulid-sess (Claude Code)") {
				t.Errorf("explain in the clone: %d\n%s", code, out)
			}
		})
	}
}

// TestRefsLayoutExplainFetchesOneRef: explain of a commit in a fresh clone
// fetches the checkpoint it names by its one ref, nothing else; a
// checkpoint the destination does not have is said in one line.
func TestRefsLayoutExplainFetchesOneRef(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	writeRefsLayout(t, dir, true)
	// A second checkpoint ref the clone must not fetch.
	other := gitIn(t, dir, nil, "rev-parse", "refs/entire/checkpoints/"+refsShard+"/"+refsULID)
	gitIn(t, dir, nil, "update-ref", "refs/entire/checkpoints/ZZ/01K9TQ8ZP7X3F5M2WVJ4CNRBZZ", other)
	bare := filepath.Join(t.TempDir(), "remote.git")
	gitIn(t, dir, nil, "init", "-q", "--bare", bare)
	gitIn(t, dir, nil, "push", "-q", "--no-verify", bare, "main", "refs-feature", "refs/entire/checkpoints/*:refs/entire/checkpoints/*")
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, filepath.Dir(clone), nil, "clone", "-q", "-b", "refs-feature", bare, clone)
	out, errOut, code := e2etest.RunEntire(t, clone, nil, "", "explain", "--commit", "HEAD", "--no-pager")
	if code != 0 || !strings.Contains(out, "ulid-sess (Claude Code)") || !strings.Contains(errOut, "Fetching 1 checkpoint(s) from origin") {
		t.Fatalf("explain in a fresh clone: %d\n%s\n%s", code, out, errOut)
	}
	if refs := gitIn(t, clone, nil, "for-each-ref", "--format=%(refname)", "refs/entire/"); refs != "refs/entire/checkpoints/"+refsShard+"/"+refsULID {
		t.Errorf("explain fetched %q, want the one checkpoint's ref", refs)
	}
	const absent = "01K9TQ8ZP7X3F5M2WVJ4CNRBAB"
	_, errOut, code = e2etest.RunEntire(t, clone, nil, "", "explain", "-c", absent, "--no-pager")
	if code == 0 || !strings.Contains(errOut, "origin has no checkpoint "+absent) {
		t.Errorf("explain of a checkpoint the remote lacks: %d\n%s", code, errOut)
	}
}
