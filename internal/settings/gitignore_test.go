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
			appended, err := EnsureDir(root)
			if err != nil {
				t.Fatal(err)
			}
			if (appended != "") != (tt.existing != tt.want) {
				t.Errorf("appended = %q", appended)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Fatalf(".gitignore = %q, want %q", got, tt.want)
			}
			if again, err := EnsureDir(root); again != "" || err != nil {
				t.Fatalf("second EnsureDir = %q %v", again, err)
			}
			// What was appended comes out again, byte for byte.
			if err := RemoveAppended(path, appended); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.existing && !(tt.existing == "" && string(got) == "") {
				t.Errorf("after RemoveAppended: %q, want %q", got, tt.existing)
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
