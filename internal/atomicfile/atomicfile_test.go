package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a", "b", "f.json")
	if err := Write(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("read back %q, %v", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := Write(filepath.Join(path, "under-a-file"), nil, 0o600); err == nil {
		t.Error("writing below a file succeeded")
	}
}

func TestRewriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Rewrite(path, []byte("a"), 0o640); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
		t.Fatalf("new file mode = %v, %v; want 0640", info.Mode().Perm(), err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Rewrite(path, []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("rewritten mode = %v, %v; want 0600 kept", info.Mode().Perm(), err)
	}
	if b, _ := os.ReadFile(path); string(b) != "b" {
		t.Fatalf("content = %q", b)
	}
}

func TestWriteWithOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	// NoMkdir: a missing directory is an error, nothing is created.
	if _, err := WriteWith(filepath.Join(dir, "missing", "f"), []byte("x"), Options{NoMkdir: true}); err == nil {
		t.Error("NoMkdir write into a missing directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("NoMkdir created the directory: %v", err)
	}

	// The returned FileInfo describes the written bytes; Perm 0 is 0600.
	path := filepath.Join(dir, "sub", "f")
	info, err := WriteWith(path, []byte("hello"), Options{Sync: SyncFile, DirPerm: 0o700})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || !os.SameFile(info, fi) || info.Size() != 5 || fi.Mode().Perm() != 0o600 {
		t.Errorf("info %v, stat %v (%v)", info, fi, err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", di.Mode().Perm())
	}

	// TempName: a leftover of that name, even a link planted there, is
	// replaced, and nothing is written through the link.
	victim := filepath.Join(dir, "victim")
	must(t, os.WriteFile(victim, []byte("keep"), 0o600))
	must(t, os.Symlink(victim, filepath.Join(dir, ".fixed.tmp")))
	if _, err := WriteWith(filepath.Join(dir, "g"), []byte("g"), Options{TempName: ".fixed.tmp", Sync: SyncNone}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("written through a planted link: victim holds %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".fixed.tmp")); !os.IsNotExist(err) {
		t.Errorf("temporary name left behind: %v", err)
	}

	// TempDir and TempPattern place and name the temporary file.
	tmpDir := filepath.Join(dir, "tmp")
	must(t, os.Mkdir(tmpDir, 0o700))
	if _, err := WriteWith(filepath.Join(dir, "h"), []byte("h"), Options{TempDir: tmpDir, TempPattern: "x-*", Perm: 0o644}); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(tmpDir); len(entries) != 0 {
		t.Errorf("temporary files left in TempDir: %v", entries)
	}
}

func TestCreateCommitAbort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := Create(dir, Options{TempPattern: "tmp_obj_*", Perm: 0o444, Sync: SyncNone, DirPerm: 0o755})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if !strings.HasPrefix(filepath.Base(f.Name()), "tmp_obj_") {
		t.Errorf("temporary name %s", f.Name())
	}
	if _, err := f.WriteString("content"); err != nil {
		t.Fatal(err)
	}
	// The target is named after the content, in a directory made on commit.
	dst := filepath.Join(dir, "ab", "cdef")
	if err := f.Commit(dst); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	fi, err := os.Stat(dst)
	if err != nil || fi.Mode().Perm() != 0o444 {
		t.Fatalf("committed file: %v, %v", fi, err)
	}
	if err := f.Commit(dst); err == nil {
		t.Error("a second Commit succeeded")
	}

	g, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.Abort()
	if _, err := os.Stat(g.Name()); !os.IsNotExist(err) {
		t.Errorf("Abort left %s: %v", g.Name(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "ab" {
		t.Errorf("left in the directory: %v", entries)
	}
}

func TestSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "link")
	must(t, os.WriteFile(path, []byte("a file first"), 0o600))
	if err := Symlink("target-one", path, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Symlink("target-two", path, Options{TempName: ".link.tmp"}); err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(path); err != nil || got != "target-two" {
		t.Errorf("link = %q, %v", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the directory: %v", entries)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
