//go:build torture

package torture

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/redact/redacttest"
)

// No secret leaves the machine (issue 12's "what must hold"): the corpus
// of secret kinds planted in every place a session stores (prompts, tool
// inputs and outputs, a hide, a note, a subagent's conclusion, Gemini's
// JSON transcript), plus a secret in a file name, one that only a pattern
// added after capture knows, and one behind an invalid custom pattern.
// After sessions, commits, a rewind and its undo, a purge and pushes of
// every shape (a plain push, --mirror, refspecs of entire's refs, --all,
// tags), no secret is in any object reachable from the remote's refs, and
// locally none is reachable from any ref or reflog (the undo store, plain
// files outside git, is the one place that keeps raw transcripts).
func TestNoSecretLeavesTheMachine(t *testing.T) {
	t.Parallel()
	const (
		late   = "acme-launch-code-zebra-orchid" // no rule knows it until a pattern is added after capture
		behind = "ACME-424242"                   // a valid custom pattern, listed after an invalid one
	)
	corpus := redacttest.Secrets(1213)
	fileSecret := redacttest.SecretOfKind(t, 77, "github-classic").Value
	values := []string{late, behind, fileSecret}
	for _, s := range corpus {
		values = append(values, s.Value)
	}

	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	r := e2etest.NewSessionRepo(t)
	r.MustGit("remote", "add", "origin", remote)
	e2etest.AddRedactionPattern(t, r.Dir, "(")
	e2etest.AddRedactionPattern(t, r.Dir, `ACME-[0-9]{6}`)
	r.MustGit("commit", "-q", "-am", "Redaction patterns")

	// A Claude Code session: the corpus everywhere, the two custom
	// secrets in a prompt, a file whose name holds a token, a subagent
	// that concludes with secrets.
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.PlantSecrets(corpus)
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "custom", "message": map[string]any{"role": "user", "content": "ticket " + behind + ", launch code " + late}})
	r.WriteFiles(map[string]string{"app.txt": "app\n", "tokens/" + fileSecret + ".txt": "rotate me\n"})
	r.PlantConclusion(fmt.Sprintf("I deployed with %s and %s.", corpus[0].Text, late))
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "leaks-done", "message": map[string]any{"id": "msg_leaks_done", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "Deployed with " + late}}}})
	r.Hook("stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": "Deployed with " + late})

	// A Gemini CLI session in the same work tree.
	g := e2etest.NewGeminiSession(r, "4b1d-gemini-leaks", false)
	for i, s := range corpus[:6] {
		g.PlayTurn("deploy with "+s.Text+" and "+late, map[string]string{fmt.Sprintf("g%d.txt", i): "ok\n"})
	}

	r.MustGit("add", "app.txt", "g0.txt", "g1.txt", "g2.txt")
	r.MustGit("commit", "-q", "-m", "First part")
	r.MustGit("push", "-q", "origin", "main")
	e2etest.AwaitBackground(t)

	// More turns, a rewind and its undo.
	r.PlayTurn("second turn with "+late, map[string]string{"b.txt": "b\n"})
	r.PlayTurn("third turn", map[string]string{"c.txt": "c\n"})
	target := r.PointOf("Second turn")
	r.MustEntire("rewind", "--to", target)
	r.MustEntire("rewind", "--undo")
	// The user drops the token file and commits the rest: no shadow
	// branch is left, which is when --mirror would push everything.
	if err := os.RemoveAll(filepath.Join(r.Dir, "tokens")); err != nil {
		t.Fatal(err)
	}
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "Second part")
	r.MustGit("tag", "-a", "-m", "release", "v1.0")
	pushes := [][]string{
		{"push", "origin", "main"},
		{"push", "--mirror", "origin"},
		{"push", "origin", "refs/entire/*:refs/entire/*"},
		{"push", "origin", "refs/heads/entire/*:refs/heads/entire/*"},
		{"push", "--all", "origin"},
		{"push", "--tags", "origin"},
	}
	pushAll := func(stage string) {
		t.Helper()
		for _, args := range pushes {
			out, err := r.GitIn(r.Dir, nil, args...)
			t.Logf("%s: git %s: %v\n%s", stage, strings.Join(args, " "), err, out)
			// No shadow branch is left: --all and --mirror to the
			// checkpoint remote go through (the mirror copies
			// refs/remotes/origin/entire/* too).
			if (args[1] == "--mirror" || args[1] == "--all") && err != nil {
				t.Errorf("%s: git %s: %v\n%s", stage, strings.Join(args, " "), err, out)
			}
		}
		if gittest.Git(t, remote, "rev-parse", "main") != gittest.Git(t, r.Dir, "rev-parse", "main") {
			t.Errorf("%s: the user's branch did not reach the remote", stage)
		}
	}
	pushAll("before the purge")

	if len(e2etest.ObjectsHolding(t, remote, late, "--all")) == 0 {
		t.Fatal("setup: the secret no rule knew yet did not reach the remote")
	}
	assertNoSecrets(t, "the remote before the purge", remote, values[1:], "--all")

	// The late pattern, a purge, and the force push doctor prints.
	e2etest.AddRedactionPattern(t, r.Dir, `acme-launch-code-[a-z]+-[a-z]+`)
	r.MustGit("commit", "-q", "-am", "Redact launch codes")
	old := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
	out, errOut, code := r.Entire("doctor", "--secrets", "--purge")
	if code != 0 {
		t.Fatalf("doctor --secrets --purge: %d %s%s", code, out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "git push ") {
			cmd := exec.Command("sh", "-c", l)
			cmd.Dir = r.Dir
			cmd.Env = e2etest.GitCmd(t, r).Env
			if o, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", l, err, o)
			}
		}
	}
	// The purge's push cleans the whole remote: the copies the mirror made
	// before the purge (under refs/remotes/) are deleted by the same push.
	if !strings.Contains(out, ":refs/remotes/origin/entire/checkpoints/v1") {
		t.Errorf("the purge's push does not delete the mirror's copy of the old history:\n%s", out)
	}
	assertNoSecrets(t, "the remote after the purge's push", remote, values, "--all")
	// A fetch between the purge and the push brings the old history back
	// as a stale remote-tracking ref: no push carries it.
	r.MustGit("update-ref", "refs/remotes/origin/stale-copy", old)
	out, err := r.GitIn(r.Dir, nil, "push", "--mirror", "origin")
	if err == nil || !strings.Contains(out, "refs/remotes/origin/stale-copy (its history holds commits a purge removed)") {
		t.Errorf("git push --mirror with a ref to purged history: %v\n%s", err, out)
	}
	rest := e2etest.PrintedPush(t, out)
	if strings.Contains(rest, "stale-copy") {
		t.Errorf("the printed command pushes the purged history: %s", rest)
	}
	cmd := exec.Command("sh", "-c", rest)
	cmd.Dir = r.Dir
	cmd.Env = e2etest.GitCmd(t, r).Env
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", rest, err, o)
	}
	assertNoSecrets(t, "the remote after a mirror without the purged history", remote, values, "--all")
	r.MustGit("update-ref", "-d", "refs/remotes/origin/stale-copy")
	r.PlayTurn("after the purge, "+late, map[string]string{"d.txt": "d\n"})
	r.MustGit("add", "d.txt")
	r.MustGit("commit", "-q", "-m", "Third part")
	pushAll("after the purge")

	if refs := gittest.Git(t, remote, "for-each-ref", "--format=%(refname)"); strings.Contains(refs, "refs/entire/") || strings.Contains(refs, "stale-copy") || !strings.Contains(refs, "refs/heads/entire/checkpoints/v1") {
		t.Errorf("remote refs:\n%s", refs)
	}
	assertNoSecrets(t, "the remote", remote, values, "--all")
	assertNoSecrets(t, "the local refs and reflogs", r.Dir, values, "--all", "--reflog")
	if leaked := e2etest.LogText(r.Dir); containsAny(leaked, values) {
		t.Error("entire's log holds a secret")
	}
}

// assertNoSecrets fails the test for each secret found in an object of dir
// reachable through the rev-list arguments, naming the object and the
// refs that reach it, never the secret.
func assertNoSecrets(t *testing.T, where, dir string, values []string, revList ...string) {
	t.Helper()
	found := 0
	e2etest.EachObject(t, dir, revList, func(typ, hash string, body []byte) {
		for i, v := range values {
			if bytes.Contains(body, []byte(v)) {
				found++
				if found <= 10 {
					refs := gittest.Git(t, dir, "log", "--all", "--format=%h %s", "--find-object="+hash)
					t.Errorf("%s: %s %s holds secret #%d (reached by: %s)", where, typ, hash[:12], i, refs)
				}
			}
		}
	})
}

func containsAny(s string, values []string) bool {
	for _, v := range values {
		if strings.Contains(s, v) {
			return true
		}
	}
	return false
}
