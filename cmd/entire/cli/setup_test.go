package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

func TestSettingsEdit(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	auto := "auto-commit"
	tests := []struct {
		name        string
		existing    string // "" = no file
		edit        settingsEdit
		onlyPresent bool
		want        string // "" = no file
		wantChanged bool
		wantErr     bool
	}{
		{
			name: "create", edit: settingsEdit{Enabled: &yes, Strategy: &auto},
			want: "{\n  \"strategy\": \"auto-commit\",\n  \"enabled\": true\n}\n", wantChanged: true,
		},
		{
			name:     "keeps other keys and their order",
			existing: "{\"log_level\": \"debug\", \"enabled\": false, \"strategy_options\": {\"summarize\": {\"enabled\": true}, \"push_timeout\": 2.50}}",
			edit:     settingsEdit{Enabled: &yes, Telemetry: &no, Options: map[string]any{settings.OptPushSessions: false}},
			// Edited in place, in the file's own (compact) layout.
			want: "{\"log_level\": \"debug\", \"enabled\": true, \"strategy_options\": {\"summarize\": {\"enabled\": true}, " +
				"\"push_timeout\": 2.50, \"push_sessions\": false}, \"telemetry\": false}",
			wantChanged: true,
		},
		{
			name:     "unchanged",
			existing: "{\n  \"enabled\": true\n}\n",
			edit:     settingsEdit{Enabled: &yes},
			want:     "{\n  \"enabled\": true\n}\n",
		},
		{
			name:     "only present keys",
			existing: "{\n  \"enabled\": false\n}\n",
			edit:     settingsEdit{Enabled: &yes, Strategy: &auto, Options: map[string]any{settings.OptPushSessions: false}},
			want:     "{\n  \"enabled\": true\n}\n", onlyPresent: true, wantChanged: true,
		},
		{
			name: "only present, no file", edit: settingsEdit{Enabled: &yes}, onlyPresent: true,
		},
		{
			name: "unknown key is an error", existing: `{"enabeld": true}`, edit: settingsEdit{Enabled: &yes},
			want: `{"enabeld": true}`, wantErr: true,
		},
		{
			name: "malformed is an error", existing: `{"enabled": tru`, edit: settingsEdit{Enabled: &yes},
			want: `{"enabled": tru`, wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), ".entire", "settings.json")
			if tt.existing != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A dry run reports the same change and writes nothing.
			dry, dryErr := tt.edit.apply(path, nil, tt.onlyPresent, true)
			if got, _ := os.ReadFile(path); string(got) != tt.existing {
				t.Fatalf("dry run wrote %q", got)
			}
			changed, err := tt.edit.apply(path, nil, tt.onlyPresent, false)
			if (err != nil) != tt.wantErr || (dryErr != nil) != tt.wantErr {
				t.Fatalf("err = %v, dry err = %v", err, dryErr)
			}
			if changed != tt.wantChanged || dry != tt.wantChanged {
				t.Errorf("changed = %v, dry = %v, want %v", changed, dry, tt.wantChanged)
			}
			got, rerr := os.ReadFile(path)
			if tt.want == "" {
				if !errors.Is(rerr, os.ErrNotExist) {
					t.Errorf("file written: %q", got)
				}
				return
			}
			if string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if !tt.wantErr {
				if _, err := settings.LoadFile(path); err != nil {
					t.Errorf("result does not load: %v", err)
				}
			}
		})
	}
}

func TestCheckEnabled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		files     map[string]string
		want      bool
		wantPrint string
	}{
		{"no settings", nil, true, ""},
		{"enabled", map[string]string{"settings.json": `{"enabled": true}`}, true, ""},
		{"disabled locally", map[string]string{"settings.json": `{"enabled": true}`, "settings.local.json": `{"enabled": false}`},
			false, disabledMessage + "\n"},
		{"unreadable counts as enabled", map[string]string{"settings.json": `{"enabled": false, "x": 1}`}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			for name, content := range tt.files {
				gittest.WriteFile(t, dir, ".entire/"+name, content)
			}
			f, out, _ := testFactory(dir, nil)
			got, err := checkEnabled(f)
			if err != nil || got != tt.want || out.String() != tt.wantPrint {
				t.Errorf("checkEnabled = %v, %v, printed %q", got, err, out)
			}
		})
	}
	f, _, _ := testFactory(t.TempDir(), nil)
	if _, err := checkEnabled(f); !errors.Is(err, errNotRepository) {
		t.Errorf("outside a repository: %v", err)
	}
}

func TestEnableRejectsInvalidSettings(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	gittest.WriteFile(t, dir, ".entire/settings.json", `{"strategy": "manual-commit", "colour": "blue"}`)
	f, out, errOut := testFactory(dir, nil)
	if code := run([]string{"enable"}, f); code != exitError {
		t.Fatalf("exit %d", code)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "colour") || !strings.Contains(errOut.String(), "fix or remove the file") {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude")); err == nil {
		t.Error("hooks installed despite invalid settings")
	}
}
