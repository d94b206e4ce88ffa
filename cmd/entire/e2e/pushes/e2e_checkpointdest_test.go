package pushes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// forgeRepo is a session repository whose remotes are forge URLs
// (https://github.com/... and git@github.com:...) that git maps to local
// bare repositories under forge/<owner>/<name>.git with url.insteadOf, as
// a user's clone of a GitHub project would have them.
type forgeRepo struct {
	*e2etest.SessionRepo
	forge string
}

func newForgeRepo(t *testing.T, originURL string) *forgeRepo {
	t.Helper()
	r := e2etest.NewSessionRepo(t)
	forge := t.TempDir()
	for _, name := range []string{"acme/app", "acme/app-checkpoints", "other/x", "acme/backup"} {
		gittest.Git(t, forge, "init", "-q", "--bare", "-b", "main", filepath.Join(forge, name+".git"))
	}
	gittest.Git(t, r.Dir, "config", "--add", "url."+forge+"/.insteadOf", "https://github.com/")
	gittest.Git(t, r.Dir, "config", "--add", "url."+forge+"/.insteadOf", "git@github.com:")
	gittest.Git(t, r.Dir, "remote", "add", "origin", originURL)
	return &forgeRepo{SessionRepo: r, forge: forge}
}

// bare is the path of the forge's repository owner/name.
func (f *forgeRepo) bare(name string) string { return filepath.Join(f.forge, name+".git") }

// refs lists the refs of the forge's repository owner/name.
func (f *forgeRepo) refs(name string) string {
	return gittest.Git(f.T, f.bare(name), "for-each-ref", "--format=%(refname)")
}

// setOptions writes strategy_options into the settings file rel (committed
// when it is the project file).
func (f *forgeRepo) setOptions(rel, opts string) {
	f.T.Helper()
	data := `{"enabled": true, "strategy": "manual-commit", "strategy_options": ` + opts + "}\n"
	if err := os.WriteFile(filepath.Join(f.Dir, rel), []byte(data), 0o644); err != nil {
		f.T.Fatal(err)
	}
	if rel == ".entire/settings.json" {
		f.MustGit("add", rel)
		f.MustGit("commit", "-q", "-m", "checkpoint settings")
	}
}

// sessionAndCommit plays a turn, commits it and returns the checkpoint ID
// and the transcript blob the checkpoint stores.
func (f *forgeRepo) sessionAndCommit() (id, transcriptBlob string) {
	f.T.Helper()
	f.Hook("session-start", map[string]any{"source": "startup"})
	f.AgentTurn("Add the app", map[string]string{"app.go": "package app\n"})
	f.MustGit("add", "app.go")
	f.MustGit("commit", "-q", "-m", "Add the app")
	id = e2etest.CheckpointAt(f.T, f.Dir, "HEAD")
	if id == "" {
		f.T.Fatal("the commit has no checkpoint")
	}
	return id, gittest.Git(f.T, f.Dir, "rev-parse", e2etest.CpPath(id, "0/full.jsonl"))
}

// push runs `git push origin main` (the installed pre-push hook runs) and
// returns its output.
func (f *forgeRepo) push(args ...string) string {
	f.T.Helper()
	out, err := e2etest.GitCmd(f.T, f.SessionRepo, append([]string{"push"}, args...)...).CombinedOutput()
	e2etest.AwaitBackground(f.T)
	if err != nil {
		f.T.Fatalf("git push %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// checkpointsStatus is the "checkpoints" object of `entire status --json`.
type checkpointsStatus struct {
	Destination string   `json:"destination"`
	Kind        string   `json:"kind"`
	URL         string   `json:"url"`
	Source      string   `json:"source"`
	Pushed      bool     `json:"pushed"`
	LocalReason string   `json:"local_reason"`
	Fix         string   `json:"fix"`
	Inherited   bool     `json:"inherited"`
	Unpushed    int      `json:"unpushed"`
	UnpushedIDs []string `json:"unpushed_ids"`
}

// statusJSON runs `entire status --json`.
func (f *forgeRepo) statusJSON() checkpointsStatus {
	f.T.Helper()
	out, errOut, code := e2etest.RunEntire(f.T, f.Dir, f.Env, "", "status", "--json")
	if code != 0 {
		f.T.Fatalf("status --json: exit %d: %s", code, errOut)
	}
	var st struct {
		Checkpoints checkpointsStatus `json:"checkpoints"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		f.T.Fatalf("status --json: %v\n%s", err, out)
	}
	return st.Checkpoints
}

// (b, d) Settings that must not send data anywhere: an inherited object
// (another owner), an unknown provider, a malformed value, a push remote
// that does not exist. Nothing leaves; the push and status say why in one
// line, with what to do.
func TestCheckpointSettingsFailClosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, opts, want, fix string
	}{
		{"inherited", `{"checkpoint_remote": {"provider": "github", "repo": "other/x"}}`,
			"names github:other/x, but https://github.com/acme/app.git belongs to acme", "settings.local.json"},
		{"unknown provider", `{"checkpoint_remote": {"provider": "sourcehut", "repo": "acme/app-checkpoints"}}`,
			`unknown provider "sourcehut"`, "remove it"},
		{"malformed", `{"checkpoint_remote": {"provider": "github", "repo": "acme/app/checkpoints"}}`,
			"is not owner/name", "remove it"},
		{"a number", `{"checkpoint_remote": 12}`, "a number is not understood", "remove it"},
		{"missing push remote", `{"checkpoint_push_remote": "publish"}`,
			"names remote 'publish', which is not one of this repository's remotes", "git remote add publish"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newForgeRepo(t, "https://github.com/acme/app.git")
			f.setOptions(".entire/settings.json", tt.opts)
			f.sessionAndCommit()
			out := f.push("origin", "main")
			if n := strings.Count(out, "Session data not pushed"); n != 1 || !strings.Contains(out, tt.want) || !strings.Contains(out, tt.fix) {
				t.Errorf("push output (want one line with %q and %q):\n%s", tt.want, tt.fix, out)
			}
			for _, name := range []string{"acme/app-checkpoints", "other/x", "acme/backup"} {
				if refs := f.refs(name); refs != "" {
					t.Errorf("%s received %s", name, refs)
				}
			}
			if refs := f.refs("acme/app"); refs != "refs/heads/main" {
				t.Errorf("origin refs:\n%s", refs)
			}
			st := f.statusJSON()
			if st.Pushed || st.Kind != "local" || !strings.Contains(st.LocalReason, tt.want) || !strings.Contains(st.Fix, tt.fix) {
				t.Errorf("status --json: %+v", st)
			}
			text, _, _ := e2etest.RunEntire(t, f.Dir, f.Env, "", "status")
			if !strings.Contains(text, "Checkpoints: kept local ("+st.LocalReason+")") {
				t.Errorf("status:\n%s", text)
			}
			if text, _, _ := e2etest.RunEntire(t, f.Dir, f.Env, "", "doctor"); strings.Count(text, "Checkpoint data stays local: "+st.LocalReason) != 1 {
				t.Errorf("doctor:\n%s", text)
			}
		})
	}
}

// (c) The object in the untracked settings.local.json is followed whatever
// its owner; (e) the string form still names a remote.
func TestCheckpointLocalObjectAndRemoteName(t *testing.T) {
	t.Parallel()
	t.Run("local object", func(t *testing.T) {
		t.Parallel()
		f := newForgeRepo(t, "git@github.com:acme/app.git")
		f.setOptions(".entire/settings.local.json", `{"checkpoint_remote": {"provider": "github", "repo": "other/x"}}`)
		id, blob := f.sessionAndCommit()
		f.push("origin", "main")
		if got := gittest.Git(t, f.bare("other/x"), "rev-parse", e2etest.CpPath(id, "0/full.jsonl")); got != blob {
			t.Errorf("other/x has %q, want %s", got, blob)
		}
		if refs := f.refs("acme/app"); refs != "refs/heads/main" {
			t.Errorf("origin refs:\n%s", refs)
		}
		if st := f.statusJSON(); st.URL != "git@github.com:other/x.git" || st.Source != "strategy_options.checkpoint_remote in .entire/settings.local.json" {
			t.Errorf("status: %+v", st)
		}
	})
	t.Run("remote name", func(t *testing.T) {
		t.Parallel()
		f := newForgeRepo(t, "https://github.com/acme/app.git")
		f.MustGit("remote", "add", "backup", "https://github.com/acme/backup.git")
		f.setOptions(".entire/settings.json", `{"checkpoint_remote": "backup"}`)
		id, blob := f.sessionAndCommit()
		f.push("origin", "main")
		if refs := f.refs("acme/backup"); refs != "" {
			t.Errorf("backup received data on a push to origin: %s", refs)
		}
		f.push("backup", "main")
		e2etest.AwaitBackground(t) // backup had no branch of the user's
		if got := gittest.Git(t, f.bare("acme/backup"), "rev-parse", e2etest.CpPath(id, "0/full.jsonl")); got != blob {
			t.Errorf("backup has %q, want %s", got, blob)
		}
		if refs := f.refs("acme/app"); refs != "refs/heads/main" {
			t.Errorf("origin refs:\n%s", refs)
		}
	})
}

// `entire enable --checkpoint-remote provider:owner/name` writes Entire's
// object; a value it cannot use is one line and exit 1, nothing written.
func TestEnableCheckpointRemoteFlag(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.Git(t, dir, "remote", "add", "origin", "git@github.com:acme/app.git")
	for _, bad := range []string{"gitea:a/b", "github:a/b/c", "github:--upload-pack=x/y", "acme/app"} {
		out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable", "--agent", "claude-code", "--checkpoint-remote", bad)
		if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "--checkpoint-remote") || out != "" {
			t.Errorf("--checkpoint-remote %s: exit %d\nstdout %q\nstderr %q", bad, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".entire")); err == nil {
		t.Fatal("a refused enable wrote .entire/")
	}
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable", "--agent", "claude-code", "--checkpoint-remote", "GitHub:acme/app-checkpoints")
	if code != 0 || !strings.Contains(out, "Checkpoints will be pushed to github:acme/app-checkpoints (git@github.com:acme/app-checkpoints.git)") {
		t.Fatalf("enable: exit %d\n%s\n%s", code, out, errOut)
	}
	m := map[string]any{}
	data, err := os.ReadFile(filepath.Join(dir, ".entire", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(m["strategy_options"])
	if string(got) != `{"checkpoint_remote":{"provider":"github","repo":"acme/app-checkpoints"}}` {
		t.Errorf("strategy_options %s", got)
	}
}
