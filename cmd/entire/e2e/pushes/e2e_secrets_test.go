package pushes

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/redact/redacttest"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/internal/testtier"
)

// Secrets never become git objects: 25 kinds of secrets planted in a Claude
// Code and a Gemini CLI session (prompts, tool inputs, tool outputs, nested
// JSON strings, escaped JSON inside strings), in a hide and in a note, then
// a commit, a rewind and its undo: no object of the repository holds any of
// them (undo points, which hold the raw transcripts, are files outside git).
func TestSecretsNeverStored(t *testing.T) {
	t.Parallel()
	secrets := redacttest.Secrets(42)
	if len(secrets) < 20 {
		t.Fatalf("only %d secret kinds", len(secrets))
	}
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})

	r.PlantSecrets(secrets)
	gittest.WriteFile(t, r.Dir, "app.env.example", "KEY=changeme\n")
	r.AppendTranscript(map[string]any{"type": "assistant", "uuid": "w1", "message": map[string]any{"id": "msg_w", "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_w", "name": "Write", "input": map[string]any{"file_path": r.Dir + "/app.env.example", "content": "KEY=changeme\n"}}}}},
		map[string]any{"type": "assistant", "uuid": "done", "message": map[string]any{"id": "msg_done", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Wrote the example env file."}}}})
	r.Hook("stop", map[string]any{"hook_event_name": "Stop", "last_assistant_message": "Wrote the example env file."})

	// Gemini CLI: the secrets in prompts and answers of a JSON transcript.
	g := e2etest.NewGeminiSession(r, "9f0e8d7c-gemini-session", false)
	for i, s := range secrets[:testtier.Count(4, 10)] {
		g.PlayTurn("deploy with "+s.Text, map[string]string{fmt.Sprintf("g%d.txt", i): "ok\n"})
	}

	r.AgentTurn("second turn", map[string]string{"b.txt": "b\n"})
	gittest.Git(t, r.Dir, "add", "-A")
	if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "Work with secrets around").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	r.AgentTurn("third turn", map[string]string{"c.txt": "c\n"})
	r.AgentTurn("fourth turn", map[string]string{"d.txt": "d\n"})
	target := r.PointOf("Third turn")
	r.MustEntire("rewind", "--to", target)
	r.MustEntire("rewind", "--undo")

	// Every object, reachable or not: undo points live outside git.
	leaks := 0
	e2etest.EachObject(t, r.Dir, nil, func(typ, hash string, body []byte) {
		for _, s := range secrets {
			if bytes.Contains(body, []byte(s.Value)) {
				leaks++
				if leaks <= 10 {
					where := gittest.Git(t, r.Dir, "log", "--all", "--format=%h %s", "--find-object="+hash)
					t.Errorf("%s object %s holds the %s secret (in: %s) %q", typ, hash[:12], s.Kind, where, firstBytes(body, 160))
				}
			}
		}
	})
	if leaks > 0 {
		t.Fatalf("%d secret occurrences stored", leaks)
	}
	gittest.Fsck(t, r.Dir)
}

func firstBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// One custom redaction pattern that does not compile does not turn off the
// others: the valid one still redacts the stored transcript, and `entire
// status` and `entire enable` name the bad one.
func TestE2EInvalidRedactionPatternSkipped(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	s, err := settings.Load(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s.SetOption(settings.OptRedaction, map[string]any{"patterns": []any{"(", `ACME-[0-9]{6}`}})
	if err := settings.Save(settings.ProjectPath(r.Dir), s); err != nil {
		t.Fatal(err)
	}
	r.MustGit("commit", "-q", "-am", "redaction patterns")
	r.PlayTurn("close ticket ACME-123456 in the changelog", map[string]string{"CHANGES.md": "- fixed ACME-123456\n"})
	r.MustGit("add", "CHANGES.md")
	r.MustGit("commit", "-q", "-m", "changelog")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("the commit is not linked to a checkpoint")
	}
	stored := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl")) + gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt"))
	if strings.Contains(stored, "ACME-123456") || !strings.Contains(stored, "close ticket REDACTED") {
		t.Errorf("the valid pattern did not redact the stored transcript and prompts:\n%s", stored)
	}

	const warning = "Warning: redaction pattern 1 \"(\" is not a valid regular expression (missing closing ): `(`) and is ignored\n"
	for _, args := range [][]string{{"status"}, {"enable"}} {
		_, errOut, code := r.Entire(args...)
		if code != 0 || !strings.Contains(errOut, warning) || strings.Count(errOut, "redaction pattern") != 1 {
			t.Errorf("entire %s: exit %d, stderr %q, want the line %q", args[0], code, errOut, warning)
		}
	}
}

// The strings entire writes into metadata are redacted like transcripts:
// a secret in the name of a file the agent wrote (files_touched of the
// session slot and of the checkpoint summary, the shadow step's context)
// or in the branch name never reaches the metadata branch.
func TestE2EMetadataStringsRedacted(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	gh := redacttest.SecretOfKind(t, 11, "github-classic").Value
	branch := "fix/" + gh
	r.MustGit("checkout", "-q", "-b", branch)
	r.PlayTurn("keep the token notes", map[string]string{"notes/" + gh + ".txt": "rotate me\n", "notes/index.md": "notes\n"})

	shadow := r.ShadowBranch()
	if shadow == "" {
		t.Fatal("no shadow branch")
	}
	for _, spec := range []string{shadow, shadow + ":.entire/metadata/" + r.SessionID + "/context.md"} {
		if out := gittest.Git(t, r.Dir, "show", "-s", "--format=%B", spec); strings.Contains(out, gh) {
			t.Errorf("%s holds the secret:\n%s", spec, out)
		}
	}

	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "notes")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("the commit is not linked to a checkpoint")
	}
	want := []any{"notes/REDACTED.txt", "notes/index.md"}
	for _, rel := range []string{"metadata.json", "0/metadata.json"} {
		m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, rel))
		if got := m["files_touched"].([]any); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s files_touched = %v, want %v", rel, got, want)
		}
		if b, _ := m["branch"].(string); b != "fix/REDACTED" {
			t.Errorf("%s branch = %q, want fix/REDACTED", rel, b)
		}
	}
	if found := e2etest.ObjectsHolding(t, r.Dir, gh, "entire/checkpoints/v1"); len(found) > 0 {
		t.Errorf("the metadata branch holds the secret in %v", found)
	}
	// The line record names the file redacted: blame cannot tell who
	// wrote it, and says so rather than crediting the person.
	out := r.MustEntire("blame", "--json", "notes/"+gh+".txt")
	if !strings.Contains(out, `"kind":"unknown"`) {
		t.Errorf("blame of the file with the secret in its name:\n%s", out)
	}
	if out := r.MustEntire("blame", "--json", "notes/index.md"); !strings.Contains(out, `"kind":"agent"`) {
		t.Errorf("blame of notes/index.md:\n%s", out)
	}
}

// files_touched lists the paths git tracks or would track: gitignored
// files the agent wrote (.env, node_modules/) are not part of the
// checkpoint, so they are left out, under both strategies.
func TestE2EFilesTouchedSkipsIgnored(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		".env":                           "API_URL=http://localhost\n",
		"node_modules/left-pad/index.js": "module.exports = 1\n",
		"app.go":                         "package app\n",
		"tracked.env":                    "B=2\n", // ignored by a pattern, but tracked
	}
	want := "[app.go tracked.env]"
	ignore := func(r *e2etest.SessionRepo) {
		gittest.WriteFile(t, r.Dir, ".gitignore", "*.env\n.env\nnode_modules/\n")
		gittest.WriteFile(t, r.Dir, "tracked.env", "B=1\n")
		r.MustGit("add", ".gitignore")
		r.MustGit("add", "-f", "tracked.env")
		r.MustGit("commit", "-q", "-m", "ignore local files")
	}
	t.Run("manual-commit", func(t *testing.T) {
		t.Parallel()
		r := e2etest.NewSessionRepo(t)
		ignore(r)
		r.PlayTurn("write the app", files)
		if st := e2etest.SessionState(t, r.Dir, r.SessionID); fmt.Sprint(st["files_touched"]) != want {
			t.Errorf("session state files_touched = %v, want %s", st["files_touched"], want)
		}
		r.MustGit("add", "app.go", "tracked.env")
		r.MustGit("commit", "-q", "-m", "app")
		id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
		if id == "" {
			t.Fatal("the commit is not linked to a checkpoint")
		}
		for _, rel := range []string{"metadata.json", "0/metadata.json"} {
			if got := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, rel))["files_touched"]; fmt.Sprint(got) != want {
				t.Errorf("%s files_touched = %v, want %s", rel, got, want)
			}
		}
	})
	t.Run("auto-commit", func(t *testing.T) {
		t.Parallel()
		r := e2etest.NewAutoCommitRepo(t)
		ignore(r)
		r.PlayTurn("write the app", files)
		id := e2etest.CheckpointOf(t, gittest.Git(t, r.Dir, "log", "-1", "--format=%B"))
		if got := e2etest.SessionMeta(t, r.Dir, id)["files_touched"]; fmt.Sprint(got) != want {
			t.Errorf("files_touched = %v, want %s", got, want)
		}
	})
}
