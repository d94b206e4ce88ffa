package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/notes"
)

func TestFitContext(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mk := func(key, content string, pinned bool) notes.Note {
		return notes.Note{Key: key, Content: content, Preview: notes.Preview(content), InContext: pinned, UpdatedAt: now.Add(-time.Hour)}
	}
	pinned := []notes.Note{mk("p1", "pinned one", true), mk("p2", strings.Repeat("long pinned ", 300), true)}
	var all []notes.Note
	all = append(all, pinned...)
	for i := range 60 {
		all = append(all, mk(fmt.Sprintf("k%02d", i), strings.Repeat("preview text ", 10), false))
	}
	full := fitContext(pinned, all, now, 1<<20)
	if !strings.HasPrefix(full, "## Pinned notes") || !strings.Contains(full, "## Notes") || strings.Contains(full, "left out") {
		t.Fatalf("full context:\n%s", full)
	}
	if strings.Index(full, "### p1") > strings.Index(full, "## Notes") {
		t.Errorf("pinned notes not first")
	}
	for _, limit := range []int{10000, 5000, 3000, 1000} {
		got := fitContext(pinned, all, now, limit)
		if n := len([]rune(got)); n > limit {
			t.Errorf("limit %d: %d chars", limit, n)
		}
		if !strings.Contains(got, "more note entries left out") {
			t.Errorf("limit %d: no left-out line:\n%s", limit, got)
		}
	}
	cut := fitContext(pinned, all, now, 5000)
	if !strings.Contains(cut, "### p1") || !strings.Contains(cut, "### p2") {
		t.Errorf("pinned notes dropped before table rows:\n%s", cut)
	}
	if got := fitContext(nil, nil, now, 100); got != "" {
		t.Errorf("no notes: %q", got)
	}
}

func TestSessionContext(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if text, err := SessionContext(ctx, repo, "claude-code", time.Now(), MaxContextChars); err != nil || text != "" {
		t.Fatalf("no branch: %q, %v", text, err)
	}
	s, _ := notes.NewStore(ctx, repo)
	if err := s.Save(ctx, "build", "make all", 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, "style", "tabs", 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.SetInContext(ctx, "style", true); err != nil {
		t.Fatal(err)
	}
	text, err := SessionContext(ctx, repo, "claude-code", time.Now(), MaxContextChars)
	if err != nil || !strings.Contains(text, "### style\n\ntabs") || !strings.Contains(text, "| `build` |") {
		t.Errorf("context %q, %v", text, err)
	}
	if text, _ := SessionContext(ctx, repo, "gemini", time.Now(), MaxContextChars); text != "" {
		t.Errorf("other agent sees %q", text)
	}
}

func TestRegisterMCP(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string {
		b, _ := os.ReadFile(filepath.Join(root, rel))
		return string(b)
	}
	write(claudecode.MCPPath, `{"mcpServers": {"mine": {"command": "mine"}}}`)
	write(claudecode.LocalSettingsPath, `{"enabledMcpjsonServers": ["mine"], "x": 1}`)
	write(".gemini/settings.json", `{"hooks": {}}`)
	for _, a := range []string{"claude-code", "gemini"} {
		changed, err := RegisterMCP(root, agentName(a), nil)
		if err != nil || !changed {
			t.Fatalf("register %s: %v %v", a, changed, err)
		}
		if changed, err := RegisterMCP(root, agentName(a), nil); err != nil || changed {
			t.Errorf("second register %s changed: %v %v", a, changed, err)
		}
	}
	if s := read(claudecode.MCPPath); !strings.Contains(s, `"mine"`) || !strings.Contains(s, `"entire": {`) || !strings.Contains(s, `"command":"entire"`) {
		t.Errorf(".mcp.json:\n%s", s)
	}
	if s := read(claudecode.LocalSettingsPath); !strings.Contains(s, `"mine"`) || !strings.Contains(s, `"entire"`) {
		t.Errorf("settings.local.json:\n%s", s)
	}
	if s := read(".gemini/settings.json"); !strings.Contains(s, `"--agent"`) || !strings.Contains(s, `"hooks"`) {
		t.Errorf("gemini settings:\n%s", s)
	}
	if !MCPRegistered(root) {
		t.Errorf("not registered")
	}
	if err := UnregisterMCP(root, nil); err != nil {
		t.Fatal(err)
	}
	// Without an install log what is recognised as Entire's goes; the
	// files come back byte for byte.
	for rel, want := range map[string]string{
		claudecode.MCPPath:           `{"mcpServers": {"mine": {"command": "mine"}}}`,
		claudecode.LocalSettingsPath: `{"enabledMcpjsonServers": ["mine"], "x": 1}`,
		".gemini/settings.json":      `{"hooks": {}}`,
	} {
		if got := read(rel); got != want {
			t.Errorf("%s after uninstall:\n got %q\nwant %q", rel, got, want)
		}
	}

	// A fresh repository: everything created is removed again.
	fresh := t.TempDir()
	if _, err := RegisterMCP(fresh, agentName("claude-code"), nil); err != nil {
		t.Fatal(err)
	}
	if err := UnregisterMCP(fresh, nil); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{claudecode.MCPPath, claudecode.LocalSettingsPath} {
		if _, err := os.Stat(filepath.Join(fresh, rel)); !os.IsNotExist(err) {
			t.Errorf("%s left behind", rel)
		}
	}
	// Invalid files are errors, not overwritten.
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, claudecode.MCPPath), []byte(`[1]`), 0o600)
	if _, err := RegisterMCP(bad, agentName("claude-code"), nil); err == nil {
		t.Errorf("invalid .mcp.json accepted")
	}
}

func agentName(s string) agent.AgentName { return agent.AgentName(s) }
