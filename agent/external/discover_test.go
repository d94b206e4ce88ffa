package external_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent/external"
)

// TestDiscoverRules: only absolute PATH entries, the first program of a
// name, built-in names skipped without running them, non-executables and
// bad names ignored, a program that fails info skipped with its reason.
func TestDiscoverRules(t *testing.T) {
	t.Parallel()
	dir, self := program(t, "acme")
	second, _ := program(t, "acme")
	builtin, _ := program(t, "claude-code")
	other := t.TempDir()
	for name, mode := range map[string]os.FileMode{"entire-agent-noexec": 0o644, "entire-agent-Bad": 0o755, "entire-agent-": 0o755} {
		if err := os.WriteFile(filepath.Join(other, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "entire-agent-broken"), []byte("#!/bin/sh\necho '{\"protocol_version\": 2}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(mustGetwd(t), second)
	if err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{rel, dir, second, builtin, other, broken}, string(os.PathListSeparator))
	found := external.Discover(context.Background(), external.Options{PATH: path, RepoRoot: t.TempDir(),
		Builtin: func(n string) bool { return n == "claude-code" }})
	byName := map[string]external.Found{}
	for _, f := range found {
		byName[f.Name] = f
	}
	if len(found) != 3 {
		t.Errorf("found %+v, want acme, broken and claude-code", found)
	}
	if f := byName["acme"]; f.Agent == nil || f.Path != self {
		t.Errorf("acme = %+v, want the first absolute entry's %s", f, self)
	}
	if f := byName["claude-code"]; f.Agent != nil || f.Err == nil {
		t.Errorf("a built-in name was not skipped: %+v", f)
	}
	if f := byName["broken"]; f.Agent != nil || f.Err == nil || !strings.Contains(f.Err.Error(), "protocol version 2") {
		t.Errorf("broken = %+v", f)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestDiscoverInfoBounded: a program that hangs on info is skipped within
// the bound, and the failure is cached (the next discovery does not run
// it); a changed program is asked again.
func TestDiscoverInfoBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prog := filepath.Join(dir, "entire-agent-slow")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nsleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	opts := external.Options{PATH: dir, RepoRoot: t.TempDir(), StateDir: state}
	start := time.Now()
	found := external.Discover(context.Background(), opts)
	if took := time.Since(start); took > external.InfoTimeout+3*time.Second {
		t.Errorf("discovery took %s", took)
	}
	if len(found) != 1 || found[0].Agent != nil || !errors.Is(found[0].Err, external.ErrProtocol) {
		t.Fatalf("found %+v", found)
	}
	start = time.Now()
	found = external.Discover(context.Background(), opts)
	if took := time.Since(start); took > time.Second || len(found) != 1 || found[0].Err == nil {
		t.Errorf("second discovery took %s: %+v (the failure is not cached)", took, found)
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho not json\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Minute)
	_ = os.Chtimes(prog, future, future)
	found = external.Discover(context.Background(), opts)
	if len(found) != 1 || found[0].Err == nil || !strings.Contains(found[0].Err.Error(), "not the JSON") {
		t.Errorf("changed program not asked again: %+v", found)
	}
}

// TestCheckSessionRef: the protocol's session_ref constraints.
func TestCheckSessionRef(t *testing.T) {
	t.Parallel()
	const dir = "/home/u/.acme/sessions"
	for _, tc := range []struct {
		ref, dir string
		ok       bool
	}{
		{"/home/u/.acme/sessions/a.jsonl", dir, true},
		{"/home/u/.acme/sessions/x/a.jsonl", dir, true},
		{"/home/u/.acme/sessionsX/a.jsonl", dir, false},
		{"/home/u/.acme/sessions", dir, false},
		{"/home/u/.acme/sessions/../x.jsonl", dir, false},
		{"/home/u/.acme/sessions/./a.jsonl", dir, false},
		{"/etc/passwd", dir, false},
		{"/etc/passwd", "", true},
		{"/a/../b", "", false},
		{"key-123", dir, true},
		{"tenant/../session-key", dir, true},
		{"../outside.jsonl", dir, false},
		{"nested/../../outside.jsonl", dir, false},
		{"a\x00b", dir, false},
		{"", dir, true},
	} {
		if err := external.CheckSessionRef(tc.ref, tc.dir); (err == nil) != tc.ok {
			t.Errorf("CheckSessionRef(%q, %q) = %v, want ok %v", tc.ref, tc.dir, err, tc.ok)
		}
	}
}
