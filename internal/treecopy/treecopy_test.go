package treecopy

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestTree: a copy has files of one link with their content and mode, the
// same links, and a linked tree shares the files.
func TestTree(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(filepath.Join(src, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a", "b", "f"), []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b/f", filepath.Join(src, "a", "l")); err != nil {
		t.Fatal(err)
	}
	links := func(p string) uint64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return uint64(fi.Sys().(*syscall.Stat_t).Nlink)
	}
	for _, mode := range []Mode{Copy, Link} {
		dst := filepath.Join(t.TempDir(), "dst")
		if err := Tree(src, dst, mode); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dst, "a", "b", "f")
		if b, err := os.ReadFile(f); err != nil || string(b) != "x" {
			t.Fatalf("mode %d: %q, %v", mode, b, err)
		}
		if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %d: permissions %v", mode, fi.Mode().Perm())
		}
		if target, err := os.Readlink(filepath.Join(dst, "a", "l")); err != nil || target != "b/f" {
			t.Errorf("mode %d: link %q, %v", mode, target, err)
		}
		if n := links(f); mode == Copy && n != 1 || mode == Link && n < 2 {
			t.Errorf("mode %d: %d links", mode, n)
		}
	}
}
