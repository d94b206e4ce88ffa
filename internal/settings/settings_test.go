package settings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeRepoFiles(t *testing.T, project, local string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if project != "" {
		if err := os.WriteFile(ProjectPath(root), []byte(project), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if local != "" {
		if err := os.WriteFile(LocalPath(root), []byte(local), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func boolp(b bool) *bool { return &b }

func TestLoadMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		project, local string
		want           *Settings
		wantErr        bool
	}{
		{name: "no files", want: Defaults()},
		{
			name:    "project only",
			project: `{"strategy":"auto-commit","enabled":false,"log_level":"debug"}`,
			want:    &Settings{Strategy: "auto-commit", Enabled: false, LogLevel: "debug"},
		},
		{
			name:    "local overrides present fields only",
			project: `{"strategy":"auto-commit","enabled":true,"local_dev":true,"telemetry":true}`,
			local:   `{"enabled":false,"strategy":""}`,
			want:    &Settings{Strategy: "auto-commit", Enabled: false, LocalDev: true, Telemetry: boolp(true)},
		},
		{
			name:    "local false overrides true",
			project: `{"local_dev":true,"telemetry":true}`,
			local:   `{"local_dev":false,"telemetry":false}`,
			want:    &Settings{Strategy: DefaultStrategy, Enabled: true, Telemetry: boolp(false)},
		},
		{
			name:    "strategy options shallow merge",
			project: `{"strategy_options":{"push_sessions":false,"summarize":{"enabled":true},"x":1}}`,
			local:   `{"strategy_options":{"summarize":{},"checkpoint_remote":"up"}}`,
			want: &Settings{Strategy: DefaultStrategy, Enabled: true, StrategyOptions: map[string]any{
				"push_sessions": false, "summarize": map[string]any{}, "x": jsonNumber("1"), "checkpoint_remote": "up",
			}},
		},
		{name: "unknown key in project", project: `{"strategy":"auto-commit","bogus":1}`, wantErr: true},
		{name: "unknown key in local", local: `{"enabld":true}`, wantErr: true},
		{name: "malformed", project: `{"enabled":`, wantErr: true},
		{name: "wrong type", project: `{"enabled":"yes"}`, wantErr: true},
		{name: "trailing data", project: `{"enabled":true} {}`, wantErr: true},
		{name: "not an object", project: `[]`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := writeRepoFiles(t, tt.project, tt.local)
			got, err := Load(root)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Load: want error, got %+v", got)
				}
				if !Enabled(root) {
					t.Fatal("Enabled must be true when settings cannot be read")
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			got.optionFiles = nil // TestOptionFileAndLoadOrDefaults
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Load = %+v, want %+v", got, tt.want)
			}
			if Enabled(root) != tt.want.Enabled {
				t.Fatalf("Enabled = %v, want %v", !tt.want.Enabled, tt.want.Enabled)
			}
		})
	}
}

func TestLoadFileMissing(t *testing.T) {
	t.Parallel()
	_, err := LoadFile(filepath.Join(t.TempDir(), "nope.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LoadFile missing: err = %v, want fs.ErrNotExist", err)
	}
}

// Parse checks bytes already read as LoadFile checks the file.
func TestParse(t *testing.T) {
	t.Parallel()
	s, err := Parse("settings.json", []byte(`{"strategy": "auto-commit", "enabled": false}`))
	if err != nil || s.StrategyName() != StrategyAutoCommit || s.Enabled {
		t.Errorf("Parse = %+v, %v", s, err)
	}
	if s.LogLevel != Defaults().LogLevel {
		t.Errorf("absent key: log level %q, want the default", s.LogLevel)
	}
	for _, bad := range []string{`{"colour": 1}`, `{"enabled": "yes"}`, `{} {}`, `{`} {
		if _, err := Parse("x/settings.json", []byte(bad)); err == nil {
			t.Errorf("Parse(%s) accepted", bad)
		}
	}
}

func TestExists(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		project, local string
		want           bool
	}{
		{"none", "", "", false},
		{"project", "{}", "", true},
		{"local", "", "{}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Exists(writeRepoFiles(t, tt.project, tt.local)); got != tt.want {
				t.Fatalf("Exists = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSaveFormatAndRoundTrip(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := Defaults()
	s.LocalDev = true
	s.Telemetry = boolp(false)
	s.SetOption(OptPushSessions, false)
	s.SetOption("future_key", map[string]any{"a": []any{"b"}})
	path := ProjectPath(root)
	if err := Save(path, s); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "strategy": "manual-commit",
  "enabled": true,
  "local_dev": true,
  "strategy_options": {
    "future_key": {
      "a": [
        "b"
      ]
    },
    "push_sessions": false
  },
  "telemetry": false
}
`
	if string(data) != want {
		t.Fatalf("saved:\n%s\nwant:\n%s", data, want)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Fatalf("mode = %v, want 0644", info.Mode().Perm())
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip = %+v, want %+v", got, s)
	}
	// Saving again is byte-identical.
	if err := Save(path, got); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if string(again) != want {
		t.Fatalf("second save differs:\n%s", again)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"strategy":"auto-commit","strategy_options":{"push_timeout":1.5}}`))
	f.Add([]byte(`{"enabled":false,"telemetry":null}`))
	f.Add([]byte(`{"x":1}`))
	f.Add([]byte(`{"strategy_options":{"checkpoint_remote":{"provider":"github","repo":"a/b"},"checkpoint_push_remote":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := decodeStrict(data)
		if err != nil {
			return
		}
		s := Defaults()
		s.apply(fs, LocalRel)
		// Accessors must never panic on arbitrary option values.
		_ = s.PushSessions()
		if c := s.CheckpointRemoteSetting(); c.Kind == CheckpointRemoteRepo {
			if _, _, err := SplitRepo(c.Provider, c.Repo); err != nil || strings.ContainsAny(c.Repo, ":\\ ") || strings.HasPrefix(c.Repo, "-") {
				t.Fatalf("accepted repo %q", c.Repo)
			}
		}
		_, _, _, _ = s.CheckpointPushRemote()
		_ = s.PushTimeout()
		_ = s.SummarizeEnabled()
		_ = s.HideThresholdBytes()
		_ = s.Conclusions()
		_ = s.RedactionPatterns()
		_ = s.RedactionAllow()
		if _, err := Marshal(s); err != nil {
			t.Fatalf("marshal decoded settings: %v", err)
		}
	})
}

func BenchmarkEnabled(b *testing.B) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(ProjectPath(root), []byte(`{"strategy":"manual-commit","enabled":true,"strategy_options":{"push_sessions":false}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if !Enabled(root) {
			b.Fatal("disabled")
		}
	}
}
