package rewind

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/strategy/rewind/undostore"
)

// rewoundFixture plays two steps, rewinds to the first and returns the
// fixture, the rewinder and the undo point's name.
func rewoundFixture(t *testing.T, files1, files2 map[string]string) (*fixture, *Rewinder, string) {
	t.Helper()
	fx := newFixture(t)
	one := fx.step("one", files1, []string{`{"uuid":"u1"}`}, "", "")
	fx.step("two", files2, []string{`{"uuid":"u2"}`, `{"uuid":"u3"}`}, "", "")
	rw := fx.rewinder()
	plan := planTo(t, rw, one)
	res, err := rw.Apply(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	return fx, rw, res.UndoPoint
}

// editManifest rewrites an undo point's manifest (its data checksum does
// not cover it).
func editManifest(t *testing.T, fx *fixture, name string, edit func(*undoPoint)) {
	t.Helper()
	path := filepath.Join(fx.repo.GitDir, undostore.DirName, name, "point.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]json.RawMessage
	var pt undoPoint
	if err := json.Unmarshal(b, &env); err != nil || json.Unmarshal(env["manifest"], &pt) != nil {
		t.Fatalf("point.json: %v", err)
	}
	edit(&pt)
	env["manifest"], _ = json.Marshal(pt)
	b, _ = json.Marshal(env)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The transcript's start comes from the file the rewind wrote; when that
// was rewritten since, from the shadow branch's chunks; when neither holds
// it, the undo fails without changing anything.
func TestUndoTranscriptBase(t *testing.T) {
	t.Parallel()
	fx, rw, name := rewoundFixture(t, map[string]string{"a.txt": "1"}, map[string]string{"a.txt": "2"})
	want := "{\"uuid\":\"u1\"}\n{\"uuid\":\"u2\"}\n{\"uuid\":\"u3\"}\n"
	os.WriteFile(fx.transcript, []byte("compacted by the agent\n"), 0o600)
	if _, err := rw.Undo(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fx.transcript); string(b) != want {
		t.Errorf("transcript rebuilt from the chunks: %q", b)
	}

	editManifest(t, fx, name, func(pt *undoPoint) { pt.Transcripts[0].Base.Chunks = nil })
	os.WriteFile(fx.transcript, []byte("compacted by the agent\n"), 0o600)
	os.WriteFile(filepath.Join(fx.dir, "a.txt"), []byte("edited"), 0o644)
	_, err := rw.Undo(context.Background(), name)
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("undo without the transcript's start: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.dir, "a.txt")); string(b) != "edited" {
		t.Errorf("a failed undo changed a.txt to %q", b)
	}
}

// An undo never writes outside the work tree: not through a symbolic link
// that replaced a directory since, nor to a path out of the work tree that
// a damaged point names.
func TestUndoStaysInTheWorkTree(t *testing.T) {
	t.Parallel()
	fx, rw, name := rewoundFixture(t, map[string]string{"d/x.txt": "1"}, map[string]string{"d/x.txt": "2"})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.txt"), []byte("outside"), 0o644)
	os.RemoveAll(filepath.Join(fx.dir, "d"))
	if err := os.Symlink(outside, filepath.Join(fx.dir, "d")); err != nil {
		t.Fatal(err)
	}
	// The link was created since: it goes, and the directory comes back.
	if _, err := rw.Undo(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "x.txt")); string(b) != "outside" {
		t.Errorf("the file behind the link became %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(fx.dir, "d")); err != nil || !fi.IsDir() {
		t.Errorf("d after undo: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.dir, "d/x.txt")); string(b) != "2" {
		t.Errorf("d/x.txt = %q", b)
	}

	editManifest(t, fx, name, func(pt *undoPoint) { pt.Files[0].Path = "../escape.txt" })
	if _, err := rw.Undo(context.Background(), name); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("undo of a path out of the work tree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(fx.dir), "escape.txt")); err == nil {
		t.Error("a file was written out of the work tree")
	}
}

// The undo point saves the content of what the rewind overwrites, and only
// the hash of the dirty paths it leaves alone.
func TestUndoPointSavesOnlyChangedPaths(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	os.WriteFile(filepath.Join(fx.dir, "mine.txt"), []byte("untouched, dirty"), 0o644)
	fx, rw, name := func() (*fixture, *Rewinder, string) {
		one := fx.step("one", map[string]string{"a.txt": "1"}, []string{`{"uuid":"u1"}`}, "", "")
		fx.step("two", map[string]string{"a.txt": "2"}, []string{`{"uuid":"u2"}`}, "", "")
		rw := fx.rewinder()
		p, _ := rw.Find(context.Background(), one.String())
		plan, err := rw.PlanRewind(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := rw.Apply(context.Background(), plan)
		if err != nil {
			t.Fatal(err)
		}
		return fx, rw, res.UndoPoint
	}()
	var pt undoPoint
	if _, err := undostore.New(fx.repo.GitDir).Read(name, &pt); err != nil {
		t.Fatal(err)
	}
	saved := map[string]bool{}
	for _, f := range pt.Files {
		saved[f.Path] = f.Data != nil
	}
	if len(saved) != 2 || !saved["a.txt"] || saved["mine.txt"] {
		t.Errorf("files of the undo point: %+v", pt.Files)
	}
	if _, err := rw.Undo(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a.txt": "2", "mine.txt": "untouched, dirty"} {
		if b, _ := os.ReadFile(filepath.Join(fx.dir, p)); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
}
