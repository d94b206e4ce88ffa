package external

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPruneCopies: copies no hook refreshed for copyMaxAge go, with their
// references; fresh ones and other files stay.
func TestPruneCopies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := &Agent{copyDir: dir}
	now := time.Now()
	old := now.Add(-copyMaxAge - time.Hour)
	for name, at := range map[string]time.Time{"s1.transcript": old, "s1.ref": old, "s2.transcript": now, "s2.ref": now, "other": old} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	a.pruneCopies(now)
	for name, want := range map[string]bool{"s1.transcript": false, "s1.ref": false, "s2.transcript": true, "s2.ref": true, "other": true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s present = %v, want %v", name, err == nil, want)
		}
	}
}
