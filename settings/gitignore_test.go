package settings

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnsureDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing string // "" = no file
		want     string
	}{
		{"fresh", "", "tmp/\nsettings.local.json\nmetadata/\nlogs/\n"},
		{"partial without newline", "# mine\nlogs/", "# mine\nlogs/\ntmp/\nsettings.local.json\nmetadata/\n"},
		{"complete", "tmp/\nsettings.local.json\nmetadata/\nlogs/\n", "tmp/\nsettings.local.json\nmetadata/\nlogs/\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path := filepath.Join(root, Dir, ".gitignore")
			if tt.existing != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			changed, err := EnsureDir(root)
			if err != nil {
				t.Fatal(err)
			}
			if changed != (tt.existing != tt.want) {
				t.Errorf("changed = %v", changed)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Fatalf(".gitignore = %q, want %q", got, tt.want)
			}
			if changed, err := EnsureDir(root); changed || err != nil {
				t.Fatalf("second EnsureDir = %v %v", changed, err)
			}
		})
	}
}

func TestEnsureIgnored(t *testing.T) {
	t.Parallel()
	root, common := t.TempDir(), t.TempDir()
	exclude := filepath.Join(common, "info", "exclude")
	if err := os.MkdirAll(filepath.Dir(exclude), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exclude, []byte("*.o"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		changed, err := EnsureIgnored(root, common)
		if err != nil || changed != want {
			t.Fatalf("call %d: EnsureIgnored = %v %v, want %v", i, changed, err, want)
		}
	}
	data, _ := os.ReadFile(exclude)
	wantText := "*.o\n" + excludeComment + "\n/.entire/tmp/\n/.entire/settings.local.json\n/.entire/metadata/\n/.entire/logs/\n"
	if string(data) != wantText {
		t.Errorf("exclude =\n%s\nwant\n%s", data, wantText)
	}
	if info, _ := os.Stat(exclude); info.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", info.Mode().Perm())
	}
	// A checkout whose .entire/.gitignore has the entries needs nothing.
	other := t.TempDir()
	if _, err := EnsureDir(root); err != nil {
		t.Fatal(err)
	}
	if changed, err := EnsureIgnored(root, other); changed || err != nil {
		t.Errorf("EnsureIgnored with .entire/.gitignore = %v %v", changed, err)
	}
	if _, err := os.Stat(filepath.Join(other, "info", "exclude")); !os.IsNotExist(err) {
		t.Errorf("exclude written although .entire/.gitignore ignores everything: %v", err)
	}
}
