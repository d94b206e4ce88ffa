package conclusion

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFormatSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{12, "12 B"},
		{1023, "1023 B"},
		{1024, "1.0 KB"},
		{1536, "1.5 KB"},
		{1024*1024 - 1, "1024.0 KB"},
		{1024 * 1024, "1.0 MB"},
		{5 * 1024 * 1024 / 2, "2.5 MB"},
		{3 * 1024 * 1024 * 1024, "3072.0 MB"},
	}
	for _, tt := range tests {
		if got := formatSize(tt.n); got != tt.want {
			t.Errorf("formatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestFilesystemArtifactResolver(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeSized(t, filepath.Join(root, "a.txt"), 12)
	writeSized(t, filepath.Join(root, "dir", "b.bin"), 2048)
	other := t.TempDir()
	abs := filepath.Join(other, "abs.txt")
	writeSized(t, abs, 5)

	resolve := NewFilesystemArtifactResolver(root)
	tests := []struct {
		name string
		ref  string
		want string
	}{
		{"relative file", "a.txt", "a.txt (12 B)"},
		{"nested file", "dir/b.bin", "dir/b.bin (2.0 KB)"},
		{"absolute file", abs, abs + " (5 B)"},
		{"missing", "nope.go", "nope.go (missing)"},
		{"absolute missing", filepath.Join(other, "nope"), filepath.Join(other, "nope") + " (missing)"},
		{"blank", "  ", "  "},
		{"empty", "", ""},
		{"url", "https://example.com/x", "https://example.com/x"},
		{"scp-style remote", "git@github.com:o/r.git", "git@github.com:o/r.git"},
		// Stat through a regular file fails with ENOTDIR, not "not exist":
		// such errors give the bare ref.
		{"other stat error", "a.txt/inner", "a.txt/inner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := resolve(tt.ref); got != tt.want {
				t.Errorf("resolve(%q) = %q, want %q", tt.ref, got, tt.want)
			}
		})
	}
}

func TestFilesystemArtifactResolverBlankBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	abs := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(abs, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"", "  "} {
		resolve := NewFilesystemArtifactResolver(base)
		for _, ref := range []string{"go.mod", "surely-missing.txt", abs} {
			if got := resolve(ref); got != ref {
				t.Errorf("base %q: resolve(%q) = %q, want the ref unchanged", base, ref, got)
			}
		}
	}
}
