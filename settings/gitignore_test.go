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
