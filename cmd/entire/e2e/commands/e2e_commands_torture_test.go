//go:build torture

// The longest scenarios of this package run in the torture tier, which CI
// runs too: go test ./... keeps within its budget (docs/testing.md).

package commands

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// The Commits section of a checkpoint finds its commit among everything
// `git log HEAD` walks: on a main line of merge commits, a commit reachable
// only through a merge's second parent.
func TestExplainCommitsThroughMerges(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
	feature := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	gittest.Git(t, r.Dir, "checkout", "-q", "main")
	r.MustGit("merge", "-q", "--no-ff", "-m", "Merge feature", "feature")
	for i := range 3 {
		b := fmt.Sprintf("side%d", i)
		gittest.Git(t, r.Dir, "checkout", "-q", "-b", b, "main~0")
		gittest.WriteFile(t, r.Dir, b+".txt", b+"\n")
		r.MustGit("add", b+".txt")
		r.MustGit("commit", "-q", "-m", "work on "+b)
		gittest.Git(t, r.Dir, "checkout", "-q", "main")
		r.MustGit("merge", "-q", "--no-ff", "-m", "Merge "+b, b)
	}
	// The feature commit is not on HEAD's first-parent line.
	if fp := gittest.Git(t, r.Dir, "rev-list", "--first-parent", "HEAD"); strings.Contains(fp, feature) {
		t.Fatalf("feature commit on the first-parent line")
	}
	want := "  " + feature[:7] + " 2026-01-02 Add greeting and farewell\n"
	for _, args := range [][]string{{"--commit", feature}, {"-c", id}, {"-c", id, "--short"}} {
		out, errOut, code := r.Entire(append([]string{"explain", "--no-pager"}, args...)...)
		if code != 0 || !strings.Contains(out, "Commits: (") || !strings.Contains(out, want) {
			t.Errorf("explain %v: %d %s\n%s", args, code, errOut, out)
		}
	}
}

// A transcript whose blob is not in this clone says so and names the fetch
// that brings it; after that fetch the transcript is shown.
func TestExplainTranscriptBlobMissing(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
	remote := e2etest.Publish(t, r)
	clone := filepath.Join(t.TempDir(), "clone")
	gittest.Git(t, r.Dir, "clone", "-q", "--no-local", remote, clone)
	gittest.Git(t, clone, "checkout", "-q", "feature")
	gittest.Git(t, clone, "branch", "-q", "entire/checkpoints/v1", "origin/entire/checkpoints/v1")
	// Make every object loose, then drop the transcript's blob.
	packs, _ := filepath.Glob(filepath.Join(clone, ".git", "objects", "pack", "*.pack"))
	for _, p := range packs {
		moved := filepath.Join(t.TempDir(), "p.pack")
		if err := os.Rename(p, moved); err != nil {
			t.Fatal(err)
		}
		os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
		os.Remove(strings.TrimSuffix(p, ".pack") + ".rev")
		cmd := exec.Command("git", "unpack-objects", "-q")
		cmd.Dir = clone
		f, err := os.Open(moved)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = f
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("unpack: %v %s", err, out)
		}
		f.Close()
	}
	blob := gittest.Git(t, clone, "rev-parse", e2etest.CpPath(id, "0/full.jsonl"))
	if err := os.Remove(filepath.Join(clone, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e2etest.RunEntire(t, clone, nil, "", "explain", "-c", id, "--no-pager")
	fetch := "git fetch origin " + blob
	if code != 0 || !strings.Contains(out, "Transcript (checkpoint scope):\n(not available here: the transcript's object "+blob[:12]) ||
		!strings.Contains(out, "  "+fetch+"\n") || strings.Contains(out, "(empty)") {
		t.Fatalf("explain with the blob missing: %d %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "Prompts: (2)\n") {
		t.Errorf("prompts lost:\n%s", out)
	}
	if _, errOut, code := e2etest.RunEntire(t, clone, nil, "", "explain", "-c", id, "--raw-transcript"); code != 1 || !strings.Contains(errOut, fetch) {
		t.Errorf("--raw-transcript with the blob missing: %d %s", code, errOut)
	}
	gittest.Git(t, clone, strings.Fields(fetch)[1:]...)
	out, _, _ = e2etest.RunEntire(t, clone, nil, "", "explain", "-c", id, "--no-pager")
	if !strings.Contains(out, "Transcript (checkpoint scope):\n[User] Please add a greeting\n") {
		t.Errorf("after the fetch:\n%s", out)
	}
}

func TestExplainGenerate(t *testing.T) {
	t.Parallel()
	r, id := e2etest.CommittedSession(t)
	bin := e2etest.GitOnlyPath(t)
	fake := "#!/bin/sh\nwhile IFS= read -r l || [ -n \"$l\" ]; do printf '%s\\n' \"$l\"; done > \"${0%/*}/prompt.txt\"\n" +
		`echo '{"type":"result","result":"{\"intent\":\"Greet people\",\"outcome\":\"Two greeting files\",\"open_items\":[\"tests\"]}"}'` + "\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(r.Env[:len(r.Env):len(r.Env)], "PATH="+bin)
	out, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate")
	if code != 0 || out != "✓ Summary generated and saved\n" {
		t.Fatalf("--generate: %d %q %q", code, out, errOut)
	}
	prompt, _ := os.ReadFile(filepath.Join(bin, "prompt.txt"))
	if !strings.Contains(string(prompt), "[User] Add a farewell too\n") || !strings.Contains(string(prompt), "[Files Modified]\n- bye.txt\n- hello.txt\n") {
		t.Errorf("prompt given to claude:\n%s", prompt)
	}
	view, _, _ := e2etest.RunEntire(t, r.Dir, r.Env, "", "explain", "-c", id)
	if !strings.Contains(view, "Intent: Greet people\nOutcome: Two greeting files\n") || !strings.Contains(view, "Open Items:\n  - tests\n") {
		t.Errorf("view after --generate:\n%s", view)
	}
	if subj := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "entire/checkpoints/v1"); subj != "Update summary for checkpoint "+id+" (session: sess-1)" {
		t.Errorf("metadata commit %q", subj)
	}
	if _, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate"); code != 1 || !strings.Contains(errOut, "already has a summary (use --force") {
		t.Errorf("second --generate: %d %q", code, errOut)
	}
	if _, errOut, code := e2etest.RunEntire(t, r.Dir, env, "", "explain", "-c", id, "--generate", "--force"); code != 0 {
		t.Errorf("--generate --force: %d %q", code, errOut)
	}
	gittest.Fsck(t, r.Dir)
}
