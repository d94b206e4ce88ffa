package agent

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A settings file is a teammate's input: one that is no regular file (a
// committed symlink to a device) or too large is refused as invalid,
// promptly and without reading it whole.
func TestReadSettingsFileRefusesWhatIsNoSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxSettingsFile + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	paths := map[string]string{"too large": huge, "a directory": dir}
	if runtime.GOOS != "windows" {
		dev := filepath.Join(dir, "dev.json")
		if err := os.Symlink(os.DevNull, dev); err != nil {
			t.Fatal(err)
		}
		paths["a symlink to a device"] = dev
	}
	for what, p := range paths {
		if _, err := ReadSettingsFile(p, true); !errors.Is(err, ErrInvalidSettings) {
			t.Errorf("%s: err = %v, want ErrInvalidSettings", what, err)
		}
	}
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte(`{"a": 1}`), 0o640); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSettingsFile(ok, true)
	if err != nil || !s.Exists || s.mode != 0o640 || s.Doc.Len() != 1 {
		t.Fatalf("a regular settings file: %+v, %v", s, err)
	}
}
