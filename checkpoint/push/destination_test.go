package push

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

func TestParseRemoteURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in                             string
		scheme, user, host, port, path string
		owner                          string
	}{
		{"https://github.com/acme/app.git", "https", "", "github.com", "", "acme/app", "acme"},
		{"https://user:pw@GitHub.com:8443/acme/app/", "https", "", "github.com", "8443", "acme/app", "acme"},
		{"git@github.com:acme/app.git", "ssh", "git", "github.com", "", "acme/app", "acme"},
		{"github.com:acme/app", "ssh", "", "github.com", "", "acme/app", "acme"},
		{"ssh://git@gitlab.example:2222/grp/sub/app.git", "ssh", "git", "gitlab.example", "2222", "grp/sub/app", "grp"},
		{"ssh://git@host/~/acme/app.git", "ssh", "git", "host", "", "acme/app", "acme"},
		{"http://host/acme/app", "http", "", "host", "", "acme/app", "acme"},
		{"git://host/acme/app", "", "", "", "", "acme/app", ""},
		{"file:///srv/acme/app.git", "", "", "", "", "srv/acme/app", ""},
		{"/srv/acme/app.git", "", "", "", "", "", ""},
		{"./a:b", "", "", "", "", "", ""},
		{"https://github.com/acme", "https", "", "github.com", "", "acme", ""},
		{"", "", "", "", "", "", ""},
	}
	for _, tt := range tests {
		u := parseRemoteURL(tt.in)
		if u.scheme != tt.scheme || u.user != tt.user || u.host != tt.host || u.port != tt.port || (tt.scheme != "" && u.path != tt.path) || u.owner() != tt.owner {
			t.Errorf("parseRemoteURL(%q) = %+v (owner %q)", tt.in, u, u.owner())
		}
	}
}

func FuzzParseRemoteURL(f *testing.F) {
	for _, s := range []string{"https://github.com/a/b.git", "git@h:a/b", "ssh://u@h:1/a/b", "/p/a", "x::y", "[::1]:a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u := parseRemoteURL(s)
		if u.scheme != "" && u.host == "" {
			t.Fatalf("%q: scheme %q without a host", s, u.scheme)
		}
		_ = u.owner()
		_ = u.hostPort()
	})
}

// destRepo is a work repository with origin at originURL (never
// contacted) and the given settings files.
func destRepo(t *testing.T, originURL, project, local string) string {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	if originURL != "" {
		gittest.Git(t, dir, "remote", "add", "origin", originURL)
	}
	for rel, data := range map[string]string{settings.ProjectRel: project, settings.LocalRel: local} {
		if data == "" {
			continue
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func resolveIn(t *testing.T, dir, pushed string, env map[string]string) Destination {
	t.Helper()
	repo := openRepo(t, dir)
	return Resolve(context.Background(), repo, settings.LoadOrDefaults(dir), ResolveOptions{Pushed: pushed, Getenv: func(k string) string { return env[k] }})
}

const cpObject = `{"strategy_options": {"checkpoint_remote": {"provider": "github", "repo": "acme/app-checkpoints"}}}`

func TestResolveRepositoryOfItsOwn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, origin, project, local, pushed string
		wantURL, wantLocal                   string
		inherited                            bool
	}{
		{name: "https", origin: "https://github.com/acme/app.git", project: cpObject, wantURL: "https://github.com/acme/app-checkpoints.git"},
		{name: "ssh", origin: "git@github.com:acme/app.git", project: cpObject, pushed: "origin", wantURL: "git@github.com:acme/app-checkpoints.git"},
		{name: "owner case", origin: "git@github.com:ACME/app.git", project: cpObject, wantURL: "git@github.com:acme/app-checkpoints.git"},
		{name: "self-hosted ssh port", origin: "ssh://git@git.corp:2222/acme/app.git",
			project: `{"strategy_options": {"checkpoint_remote": {"provider": "gitlab", "repo": "acme/app-checkpoints"}}}`,
			wantURL: "ssh://git@git.corp:2222/acme/app-checkpoints.git"},
		{name: "inherited: other owner", origin: "https://github.com/other/x.git", project: cpObject, wantLocal: "belongs to other", inherited: true},
		{name: "inherited: a path", origin: "/srv/app.git", project: cpObject, wantLocal: "belongs to an owner it cannot tell", inherited: true},
		{name: "local file honoured", origin: "https://github.com/other/x.git", local: cpObject, wantURL: "https://github.com/acme/app-checkpoints.git"},
		{name: "local file, path origin", origin: "/srv/app.git", local: cpObject, wantURL: "https://github.com/acme/app-checkpoints.git"},
		{name: "cross forge", origin: "https://gitlab.com/acme/app.git", project: cpObject, wantLocal: "on gitlab.com"},
		{name: "no remote", project: cpObject, wantLocal: "no remote to derive"},
		{name: "unknown provider", origin: "https://github.com/acme/app.git",
			project: `{"strategy_options": {"checkpoint_remote": {"provider": "gitea", "repo": "acme/x"}}}`, wantLocal: `unknown provider "gitea"`},
		{name: "malformed", origin: "https://github.com/acme/app.git",
			project: `{"strategy_options": {"checkpoint_remote": {"repo": "acme/x"}}}`, wantLocal: "needs both"},
		{name: "a number", origin: "https://github.com/acme/app.git",
			project: `{"strategy_options": {"checkpoint_remote": 7}}`, wantLocal: "a number is not understood"},
		{name: "unreadable settings", origin: "https://github.com/acme/app.git", project: `{"strategy_options": `, wantLocal: "the settings cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := resolveIn(t, destRepo(t, tt.origin, tt.project, tt.local), tt.pushed, nil)
			if tt.wantLocal != "" {
				if d.Pushes() || d.Fetches() || !strings.Contains(d.Local, tt.wantLocal) || d.Fix == "" || d.Inherited != tt.inherited {
					t.Fatalf("got %+v, want local with %q", d, tt.wantLocal)
				}
				return
			}
			if !d.Pushes() || d.URL != tt.wantURL || d.Remote != "" {
				t.Fatalf("got %+v, want %s", d, tt.wantURL)
			}
			if !strings.HasPrefix(string(d.TrackingRef("entire/checkpoints/v1")), "refs/remotes/entire-checkpoints/") {
				t.Errorf("tracking ref %s", d.TrackingRef("entire/checkpoints/v1"))
			}
		})
	}
}

// A push URL of the pushed remote owned by someone else makes the object
// inherited for that push, whatever origin says; a committed
// settings.local.json is not the untracked file.
func TestResolveInheritedByPushURLAndTrackedLocalFile(t *testing.T) {
	t.Parallel()
	dir := destRepo(t, "https://github.com/acme/app.git", cpObject, "")
	gittest.Git(t, dir, "remote", "add", "mirror", "https://github.com/acme/app.git")
	gittest.Git(t, dir, "config", "--add", "remote.mirror.pushurl", "https://github.com/acme/app.git")
	gittest.Git(t, dir, "config", "--add", "remote.mirror.pushurl", "https://github.com/someone/app.git")
	if d := resolveIn(t, dir, "origin", nil); !d.Pushes() {
		t.Fatalf("origin: %+v", d)
	}
	if d := resolveIn(t, dir, "mirror", nil); d.Pushes() || !d.Inherited {
		t.Fatalf("mirror: %+v", d)
	}
	tracked := destRepo(t, "https://github.com/other/x.git", "", cpObject)
	gittest.Git(t, tracked, "add", "-f", settings.LocalRel)
	if d := resolveIn(t, tracked, "", nil); d.Pushes() || !d.Inherited {
		t.Fatalf("committed local file followed: %+v", d)
	}
}

func TestResolveRemotes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, project, extra   string
		wantRemote, wantSource string
		wantLocal              string
		disabled               bool
	}{
		{name: "default", wantRemote: "origin", wantSource: "default"},
		{name: "string form", project: `{"strategy_options": {"checkpoint_remote": "backup"}}`, extra: "backup", wantRemote: "backup", wantSource: "strategy_options.checkpoint_remote in .entire/settings.json"},
		{name: "string form, missing", project: `{"strategy_options": {"checkpoint_remote": "gone"}}`, wantLocal: "remote 'gone'"},
		{name: "push remote", project: `{"strategy_options": {"checkpoint_push_remote": "backup"}}`, extra: "backup", wantRemote: "backup", wantSource: "strategy_options.checkpoint_push_remote in .entire/settings.json"},
		{name: "push remote missing", project: `{"strategy_options": {"checkpoint_push_remote": "gone"}}`, wantLocal: "not one of this repository's remotes"},
		{name: "push remote not a name", project: `{"strategy_options": {"checkpoint_push_remote": true}}`, wantLocal: "a boolean is not a remote name"},
		{name: "push_sessions false", project: `{"strategy_options": {"push_sessions": false}}`, wantRemote: "origin", wantSource: "default", disabled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := destRepo(t, "https://example.com/acme/app.git", tt.project, "")
			if tt.extra != "" {
				gittest.Git(t, dir, "remote", "add", tt.extra, "https://example.com/acme/other.git")
			}
			d := resolveIn(t, dir, "", nil)
			if tt.wantLocal != "" {
				if d.Fetches() || !strings.Contains(d.Local, tt.wantLocal) {
					t.Fatalf("got %+v, want local with %q", d, tt.wantLocal)
				}
				return
			}
			if d.Remote != tt.wantRemote || d.Source != tt.wantSource || d.Pushes() == tt.disabled || !d.Fetches() {
				t.Fatalf("got %+v", d)
			}
		})
	}
	// The election without origin: the only remote, else the first.
	dir := gittest.InitWithCommit(t)
	if d := resolveIn(t, dir, "", nil); !d.NoRemote || d.Pushes() {
		t.Fatalf("no remote: %+v", d)
	}
	gittest.Git(t, dir, "remote", "add", "up", "https://example.com/a/b.git")
	gittest.Git(t, dir, "remote", "add", "zz", "https://example.com/a/c.git")
	if d := resolveIn(t, dir, "", nil); d.Remote != "up" || !d.Pushes() {
		t.Fatalf("election: %+v", d)
	}
}

// ENTIRE_CHECKPOINT_TOKEN reaches git as an HTTP header for the checkpoint
// repository only, over HTTPS (SSH is rewritten), after the environment's
// own configuration entries.
func TestResolveToken(t *testing.T) {
	t.Parallel()
	dir := destRepo(t, "git@github.com:acme/app.git", cpObject, "")
	d := resolveIn(t, dir, "origin", map[string]string{EnvCheckpointToken: "tok123", "GIT_CONFIG_COUNT": "2"})
	if d.URL != "https://github.com/acme/app-checkpoints.git" {
		t.Fatalf("URL %s", d.URL)
	}
	want := "GIT_CONFIG_VALUE_2=Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:tok123"))
	if len(d.env) != 3 || d.env[0] != "GIT_CONFIG_COUNT=3" || d.env[1] != "GIT_CONFIG_KEY_2=http.extraHeader" || d.env[2] != want {
		t.Fatalf("env %q", d.env)
	}
	if strings.Contains(d.Local+d.Fix+d.Note+d.URL+d.Source, "tok123") {
		t.Fatalf("the token shows in %+v", d)
	}
	bad := resolveIn(t, dir, "origin", map[string]string{EnvCheckpointToken: "a\nb"})
	if len(bad.env) != 0 || bad.Note == "" || bad.URL != "git@github.com:acme/app-checkpoints.git" {
		t.Fatalf("unusable token: %+v", bad)
	}
	// A configured SSH remote gets no token; an HTTPS one does.
	ssh := resolveIn(t, destRepo(t, "git@example.com:acme/app.git", "", ""), "", map[string]string{EnvCheckpointToken: "t"})
	https := resolveIn(t, destRepo(t, "https://example.com/acme/app.git", "", ""), "", map[string]string{EnvCheckpointToken: "t"})
	if len(ssh.env) != 0 || len(https.env) != 3 {
		t.Fatalf("remote tokens: ssh %q https %q", ssh.env, https.env)
	}
}
