package logging

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/settings"
)

func readRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestLevelResolution(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		env      string
		file     string
		want     slog.Level
		wantWarn bool
	}{
		{"default", "", "", slog.LevelInfo, false},
		{"settings", "", "debug", slog.LevelDebug, false},
		{"env wins", "error", "debug", slog.LevelError, false},
		{"warning alias", "WARNING", "", slog.LevelWarn, false},
		{"invalid env", "loud", "debug", slog.LevelInfo, true},
		{"invalid settings", "", "verbose", slog.LevelInfo, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var warn bytes.Buffer
			s := settings.Defaults()
			s.LogLevel = tt.file
			l := Open(Options{RepoRoot: t.TempDir(), Settings: s, Fallback: &warn,
				Getenv: func(k string) string {
					if k == settings.EnvLogLevel {
						return tt.env
					}
					return ""
				}})
			defer l.Close()
			for _, lv := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
				if got, want := l.Enabled(t.Context(), lv), lv >= tt.want; got != want {
					t.Errorf("Enabled(%v) = %v, want %v", lv, got, want)
				}
			}
			if gotWarn := strings.Contains(warn.String(), "invalid log level"); gotWarn != tt.wantWarn {
				t.Errorf("warning = %q, want warning %v", warn.String(), tt.wantWarn)
			}
		})
	}
}

func TestWritesJSONLinesOnClose(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	l := Open(Options{RepoRoot: root})
	path := filepath.Join(root, LogDir, LogFile)
	if l.Path() != path {
		t.Fatalf("Path = %q, want %q", l.Path(), path)
	}
	l.ForComponent("hooks").Info("hook done", Hook("stop"), SessionID("s1"), Agent("claude-code"),
		Duration(1500*time.Millisecond), Success(true))
	if data, _ := os.ReadFile(path); len(data) != 0 {
		t.Fatalf("record written before Close (not buffered): %q", data)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	l.Info("after close is dropped")
	recs := readRecords(t, path)
	if len(recs) != 1 {
		t.Fatalf("records = %v", recs)
	}
	r := recs[0]
	for k, want := range map[string]any{"msg": "hook done", "level": "INFO", KeyComponent: "hooks", KeyHook: "stop",
		KeySessionID: "s1", KeyAgent: "claude-code", KeyDurationMS: 1500.0, KeySuccess: true} {
		if r[k] != want {
			t.Errorf("%s = %v, want %v", k, r[k], want)
		}
	}
	if _, ok := r["time"]; !ok {
		t.Error("no time attribute")
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", info.Mode().Perm())
	}
	dinfo, _ := os.Stat(filepath.Dir(path))
	if dinfo.Mode().Perm() != 0o750 {
		t.Errorf("dir mode %v", dinfo.Mode().Perm())
	}
	// A second open appends.
	l2 := Open(Options{RepoRoot: root})
	l2.Warn("second")
	must(t, l2.Close())
	if recs := readRecords(t, path); len(recs) != 2 || recs[1]["msg"] != "second" {
		t.Fatalf("append: %v", recs)
	}
}

func TestRotation(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, LogDir, LogFile)
	must(t, os.MkdirAll(filepath.Dir(path), 0o750))
	must(t, os.WriteFile(path, bytes.Repeat([]byte("x"), 200), 0o600))
	must(t, os.WriteFile(path+".1", []byte("older"), 0o600))
	l := Open(Options{RepoRoot: root, MaxSize: 100})
	l.Info("fresh")
	must(t, l.Close())
	if data, _ := os.ReadFile(path + ".1"); len(data) != 200 {
		t.Fatalf("rotated file has %d bytes, want 200", len(data))
	}
	if recs := readRecords(t, path); len(recs) != 1 {
		t.Fatalf("new log = %v", recs)
	}
	// Below the threshold nothing rotates.
	l = Open(Options{RepoRoot: root, MaxSize: 100})
	l.Info("again")
	must(t, l.Close())
	if recs := readRecords(t, path); len(recs) != 2 {
		t.Fatalf("log after second open = %v", recs)
	}
}

func TestFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T) string
		warn  bool
	}{
		{"no repo", func(*testing.T) string { return "" }, false},
		{".entire is a file", func(t *testing.T) string {
			root := t.TempDir()
			must(t, os.WriteFile(filepath.Join(root, ".entire"), []byte("x"), 0o644))
			return root
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			l := Open(Options{RepoRoot: tt.setup(t), Fallback: &stderr})
			if l.Path() != "" {
				t.Fatalf("Path = %q, want fallback", l.Path())
			}
			l.Info("to stderr", Component("hooks"))
			must(t, l.Close())
			out := stderr.String()
			if tt.warn != strings.Contains(out, "cannot open log file") {
				t.Errorf("warning mismatch: %q", out)
			}
			if !strings.Contains(out, `"msg":"to stderr"`) {
				t.Errorf("record not on fallback: %q", out)
			}
		})
	}
}

func TestConcurrentLogAndClose(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	l := Open(Options{RepoRoot: root})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				l.Info("msg", "g", g, "i", i)
			}
		}()
	}
	wg.Wait()
	must(t, l.Close())
	if recs := readRecords(t, filepath.Join(root, LogDir, LogFile)); len(recs) != 800 {
		t.Fatalf("%d records, want 800", len(recs))
	}
}

func TestDiscard(t *testing.T) {
	t.Parallel()
	l := Discard()
	l.Error("nothing")
	if err := l.Close(); err != nil || l.Path() != "" {
		t.Fatal("Discard logger misbehaves")
	}
}

func BenchmarkOpenLogClose(b *testing.B) {
	root := b.TempDir()
	for b.Loop() {
		l := Open(Options{RepoRoot: root})
		l.Info("hook", Hook("stop"), Duration(time.Millisecond))
		_ = l.Close()
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
