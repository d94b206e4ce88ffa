package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckpointRemoteSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opts    string
		kind    CheckpointRemoteKind
		str     string
		owner   string
		problem string
	}{
		{`{}`, CheckpointRemoteUnset, "", "", ""},
		{`{"checkpoint_remote": ""}`, CheckpointRemoteUnset, "", "", ""},
		{`{"checkpoint_remote": "backup"}`, CheckpointRemoteName, "backup", "", ""},
		{`{"checkpoint_remote": {"provider": "github", "repo": "acme/app-checkpoints"}}`, CheckpointRemoteRepo, "github:acme/app-checkpoints", "acme", ""},
		{`{"checkpoint_remote": {"provider": "GitLab", "repo": "grp/sub/app.cp"}}`, CheckpointRemoteRepo, "gitlab:grp/sub/app.cp", "grp", ""},
		{`{"checkpoint_remote": {"provider": "bitbucket", "repo": "ws/repo_1"}}`, CheckpointRemoteRepo, "bitbucket:ws/repo_1", "ws", ""},
		{`{"checkpoint_remote": {"provider": "gitea", "repo": "a/b"}}`, CheckpointRemoteInvalid, "", "", "unknown provider"},
		{`{"checkpoint_remote": {"provider": "github", "repo": "a/b/c"}}`, CheckpointRemoteInvalid, "", "", "not owner/name"},
		{`{"checkpoint_remote": {"provider": "github", "repo": "acme"}}`, CheckpointRemoteInvalid, "", "", "not owner/name"},
		{`{"checkpoint_remote": {"provider": "github", "repo": "--upload-pack=x/y"}}`, CheckpointRemoteInvalid, "", "", "not owner/name"},
		{`{"checkpoint_remote": {"provider": "github", "repo": "ext::sh/x"}}`, CheckpointRemoteInvalid, "", "", "not owner/name"},
		{`{"checkpoint_remote": {"provider": "github", "repo": "../../etc/x"}}`, CheckpointRemoteInvalid, "", "", "not owner/name"},
		{`{"checkpoint_remote": {"provider": "github", "repo": "a/b c"}}`, CheckpointRemoteInvalid, "", "", "not owner/name"},
		{`{"checkpoint_remote": {"provider": "github"}}`, CheckpointRemoteInvalid, "", "", "needs both"},
		{`{"checkpoint_remote": {"provider": "github", "repo": "a/b", "url": "x"}}`, CheckpointRemoteInvalid, "", "", "unknown key"},
		{`{"checkpoint_remote": 5}`, CheckpointRemoteInvalid, "", "", "a number is not understood"},
		{`{"checkpoint_remote": ["a"]}`, CheckpointRemoteInvalid, "", "", "a list is not understood"},
		{`{"checkpoint_remote": "--exec=x"}`, CheckpointRemoteInvalid, "", "", "not a remote name"},
		{`{"checkpoint_remote": "https://evil.example/x"}`, CheckpointRemoteInvalid, "", "", "not a remote name"},
	}
	for _, tt := range tests {
		s := parseOpts(t, tt.opts)
		got := s.CheckpointRemoteSetting()
		if got.Kind != tt.kind || got.String() != tt.str || got.Owner != tt.owner || !strings.Contains(got.Problem, tt.problem) {
			t.Errorf("%s: got %+v", tt.opts, got)
		}
		if got.Kind == CheckpointRemoteInvalid && !strings.Contains(got.Problem, ProjectRel) {
			t.Errorf("%s: problem %q does not name the file", tt.opts, got.Problem)
		}
		if (got.Kind != CheckpointRemoteUnset) != s.HasCheckpointSetting() {
			t.Errorf("%s: HasCheckpointSetting = %v", tt.opts, s.HasCheckpointSetting())
		}
	}
}

func TestCheckpointPushRemote(t *testing.T) {
	t.Parallel()
	for opts, want := range map[string][2]string{
		`{}`:                                  {"", ""},
		`{"checkpoint_push_remote": "pub"}`:   {"pub", ""},
		`{"checkpoint_push_remote": 3}`:       {"", "a number is not a remote name"},
		`{"checkpoint_push_remote": "-x"}`:    {"", "not a remote name"},
		`{"checkpoint_push_remote": "a b"}`:   {"", "not a remote name"},
		`{"checkpoint_push_remote": "  "}`:    {"", ""},
		`{"checkpoint_push_remote": {"a":1}}`: {"", "an object is not"},
	} {
		s := parseOpts(t, opts)
		name, _, problem, _ := s.CheckpointPushRemote()
		if name != want[0] || !strings.Contains(problem, want[1]) || (want[1] == "") != (problem == "") {
			t.Errorf("%s: name %q problem %q", opts, name, problem)
		}
	}
}

// The file each strategy_options key came from is known: the local file's
// object is honoured where the committed one may not be.
func TestOptionFileAndLoadOrDefaults(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ProjectRel, `{"strategy_options": {"checkpoint_remote": {"provider": "github", "repo": "a/b"}, "push_sessions": true},
		"checkpoints": {"primary": {"type": "git-refs"}}}`)
	write(LocalRel, `{"strategy_options": {"checkpoint_remote": {"provider": "github", "repo": "me/b"}}}`)
	s := LoadOrDefaults(root)
	if s.Unreadable != nil {
		t.Fatal(s.Unreadable)
	}
	if got := s.CheckpointRemoteSetting(); got.File != LocalRel || got.Owner != "me" {
		t.Errorf("checkpoint_remote: %+v", got)
	}
	if f := s.OptionFile(OptPushSessions); f != ProjectRel {
		t.Errorf("push_sessions from %q", f)
	}
	if string(s.Checkpoints) == "" {
		t.Error("the checkpoints block was not kept")
	}
	write(LocalRel, `{"strategy_options": `)
	s = LoadOrDefaults(root)
	if s.Unreadable == nil || s.CheckpointRemoteSetting().Kind != CheckpointRemoteUnset {
		t.Errorf("unreadable local file: %+v", s)
	}
}
