package undostore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

type manifest struct {
	What  string   `json:"what"`
	Paths []string `json:"paths"`
}

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	s := New(t.TempDir())
	if names, err := s.Names(); err != nil || names != nil {
		t.Fatalf("empty store: %v %v", names, err)
	}
	want := manifest{What: "rewind", Paths: []string{"a", "b/c"}}
	data := []byte(strings.Repeat("secret bytes\n", 1000))
	if err := s.Write("20260102T030405.000000000Z", want, data); err != nil {
		t.Fatal(err)
	}
	var got manifest
	b, err := s.Read("20260102T030405.000000000Z", &got)
	if err != nil || string(b) != string(data) || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %q %+v %v", firstN(b), got, err)
	}
	if err := s.Write("20260102T030405.000000000Z", want, nil); !errors.Is(err, ErrExists) {
		t.Errorf("second write of a name: %v", err)
	}
	// Private, compressed, nothing left behind.
	dir := filepath.Join(s.Dir(), "20260102T030405.000000000Z")
	for _, f := range []string{pointFile, dataFile} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", f, fi.Mode(), err)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, dataFile)); fi.Size() > int64(len(data))/10 {
		t.Errorf("data not compressed: %d bytes", fi.Size())
	}
	if entries, _ := os.ReadDir(s.Dir()); len(entries) != 1 {
		t.Errorf("store holds %v", entries)
	}
	// Empty data.
	if err := s.Write("empty", want, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Read("empty", &got); err != nil || len(b) != 0 {
		t.Errorf("empty data: %q %v", b, err)
	}
}

func TestNamesRemovePrune(t *testing.T) {
	t.Parallel()
	s := New(t.TempDir())
	for i := 5; i >= 1; i-- {
		if err := s.Write(fmt.Sprintf("2026010%dT000000.000000000Z", i), manifest{}, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(s.Dir(), ".tmp-crashed"), 0o700)
	os.WriteFile(filepath.Join(s.Dir(), "stray-file"), nil, 0o600)
	names, err := s.Names()
	if err != nil || len(names) != 5 || names[0] != "20260101T000000.000000000Z" {
		t.Fatalf("names %v %v", names, err)
	}
	removed, err := s.Prune(3)
	if err != nil || len(removed) != 2 || removed[1] != "20260102T000000.000000000Z" {
		t.Fatalf("prune removed %v %v", removed, err)
	}
	if names, _ := s.Names(); len(names) != 3 || names[0] != "20260103T000000.000000000Z" {
		t.Errorf("after prune %v", names)
	}
	if err := s.Remove("20260103T000000.000000000Z"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("20260103T000000.000000000Z"); err != nil {
		t.Errorf("removing a missing point: %v", err)
	}
	if _, err := s.Read("20260103T000000.000000000Z", &manifest{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("read of a removed point: %v", err)
	}
}

func TestReadRefusesDamage(t *testing.T) {
	t.Parallel()
	for name, damage := range map[string]func(dir string){
		"flipped data": func(dir string) {
			s := New(t.TempDir())
			s.Write("x", manifest{}, []byte("other bytes, other checksum"))
			b, _ := os.ReadFile(filepath.Join(s.Dir(), "x", dataFile))
			os.WriteFile(filepath.Join(dir, dataFile), b, 0o600)
		},
		"truncated data": func(dir string) { os.WriteFile(filepath.Join(dir, dataFile), nil, 0o600) },
		"missing data":   func(dir string) { os.Remove(filepath.Join(dir, dataFile)) },
		"huge manifest":  func(dir string) { os.Truncate(filepath.Join(dir, pointFile), MaxManifest+1) },
		"size too large": func(dir string) { rewrite(dir, `"data_size":16`, `"data_size":99999999999`) },
		"size too small": func(dir string) { rewrite(dir, `"data_size":16`, `"data_size":4`) },
		"newer version":  func(dir string) { rewrite(dir, `"version":1`, `"version":2`) },
		"symlinked data": func(dir string) {
			os.Rename(filepath.Join(dir, dataFile), dir+".data")
			os.Symlink(dir+".data", filepath.Join(dir, dataFile))
		},
		"symlinked point": func(dir string) { os.Rename(dir, dir+".real"); os.Symlink(dir+".real", dir) },
	} {
		s := New(t.TempDir())
		if err := s.Write("p", manifest{What: "w"}, []byte("0123456789abcdef")); err != nil {
			t.Fatal(err)
		}
		damage(filepath.Join(s.Dir(), "p"))
		if _, err := s.Read("p", &manifest{}); !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: read gave %v", name, err)
		}
	}
}

func rewrite(dir, old, new string) {
	p := filepath.Join(dir, pointFile)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o600)
}

func TestNames(t *testing.T) {
	t.Parallel()
	s := New(t.TempDir())
	for _, bad := range []string{"", ".", "..", "../x", "a/b", ".hidden", "-x", strings.Repeat("a", 129)} {
		if ValidName(bad) {
			t.Errorf("ValidName(%q)", bad)
		}
		if err := s.Write(bad, manifest{}, nil); !errors.Is(err, ErrBadName) {
			t.Errorf("Write(%q): %v", bad, err)
		}
		if _, err := s.Read(bad, &manifest{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("Read(%q): %v", bad, err)
		}
	}
	if !ValidName("20260102T030405.000000000Z") {
		t.Error("timestamp name refused")
	}
}

func firstN(b []byte) string {
	if len(b) > 40 {
		return string(b[:40])
	}
	return string(b)
}

// ValidName accepts what the rule's regular expression accepts.
func FuzzValidName(f *testing.F) {
	rule := regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._-]{0,127}$`)
	for _, s := range []string{"", "a", "..", "_x", "a..b", "ab c", "é", "a\x00", strings.Repeat("a", 128), strings.Repeat("a", 129), "20260102T030405.000000000Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := ValidName(name), rule.MatchString(name); got != want {
			t.Errorf("ValidName(%q) = %v, the rule says %v", name, got, want)
		}
	})
}
