package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHideAndNotesEndToEnd plays a Claude Code session with the built
// binary: notes saved by a person reach the agent at session start, a
// 50 KB tool result becomes a hide whose page 1 replaces it, the MCP tools
// page through it, and the commit's checkpoint slot links hides and notes.
func TestHideAndNotesEndToEnd(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	for _, args := range [][]string{{"note", "save", "build", "run make all before committing"}, {"note", "save", "style", "tabs, not spaces"}, {"note", "pin", "style"}} {
		if _, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", args...); code != 0 {
			t.Fatalf("entire %v: %d %s", args, code, errOut)
		}
	}

	out, _ := r.Hook("session-start", map[string]any{"source": "startup", "hook_event_name": "SessionStart"})
	var start struct {
		SystemMessage string `json:"systemMessage"`
		Specific      struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &start); err != nil {
		t.Fatalf("session-start output %q: %v", out, err)
	}
	ctxText := start.Specific.AdditionalContext
	if !strings.Contains(start.SystemMessage, "Powered by Entire") || start.Specific.HookEventName != "SessionStart" ||
		!strings.Contains(ctxText, "### style\n\ntabs, not spaces") || !strings.Contains(ctxText, "| `build` |") ||
		strings.Index(ctxText, "## Pinned notes") > strings.Index(ctxText, "## Notes") {
		t.Fatalf("session-start output:\n%s", out)
	}

	// The transcript says which Claude Code version runs (2.1.121+ can
	// replace tool output).
	r.AppendTranscript(map[string]any{"type": "user", "version": "2.1.130", "uuid": "v0", "message": map[string]any{"role": "user", "content": "hi"}})
	big := e2etest.BigOutput()
	out, _ = r.Hook("post-tool", map[string]any{
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input":    map[string]any{"command": "make"},
		"tool_response": map[string]any{"stdout": big, "stderr": "", "interrupted": false, "isImage": false},
	})
	var post struct {
		Specific struct {
			HookEventName     string         `json:"hookEventName"`
			UpdatedToolOutput map[string]any `json:"updatedToolOutput"`
			AdditionalContext *string        `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &post); err != nil {
		t.Fatalf("post-tool output %q: %v", out, err)
	}
	upd := post.Specific.UpdatedToolOutput
	page1, _ := upd["stdout"].(string)
	if post.Specific.HookEventName != "PostToolUse" || post.Specific.AdditionalContext != nil ||
		upd["stderr"] != "" || upd["interrupted"] != false || upd["isImage"] != false {
		t.Fatalf("post-tool output shape:\n%.600s", out)
	}
	if !strings.HasPrefix(page1, "[HIDE id=hide_bash_") || !strings.Contains(page1, " source=Bash page=1/14 bytes=3800]\n") ||
		!strings.Contains(page1, "row 00000: ") || !strings.HasSuffix(page1, "\n[END page 1/14]") {
		t.Fatalf("page 1:\n%s", page1)
	}
	id := strings.Fields(strings.TrimPrefix(page1, "[HIDE id="))[0]
	if show, _, _ := e2etest.RunEntire(t, r.Dir, r.Env, "", "hide", "show", id, "--page", "1"); !strings.Contains(show, page1[strings.Index(page1, "row 00000"):3000]) {
		t.Errorf("entire hide show disagrees with page 1:\n%.300s", show)
	}

	// A small result costs nothing and says nothing.
	if out, _ := r.Hook("post-tool", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_response": map[string]any{"stdout": "ok\n", "stderr": "", "interrupted": false, "isImage": false}}); out != "" {
		t.Errorf("small post-tool output %q", out)
	}

	// The agent pages through the hide with the MCP tools.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(e2etest.EntireBin(), "mcp")
	cmd.Dir = r.Dir
	cmd.Env = append(append(gittest.Env(t.TempDir()), r.Env...), "CLAUDE_CODE_SESSION_ID="+r.SessionID)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("%s: %s", name, text)
		}
		return text
	}
	if p2 := call("hide_next", map[string]any{"hide_id": id, "current_page": 1}); !strings.Contains(p2, "page=2/14") {
		t.Errorf("hide_next:\n%.200s", p2)
	}
	if last := call("hide_jump", map[string]any{"hide_id": id, "page": 14}); !strings.Contains(last, "FINAL-NEEDLE") || !strings.Contains(last, "no further pages") {
		t.Errorf("hide_jump 14:\n%.200s", last)
	}
	if found := call("hide_search", map[string]any{"hide_id": "", "query": "final-needle"}); !strings.Contains(found, "page=14/14") {
		t.Errorf("hide_search with the one-hide fallback:\n%.200s", found)
	}
	if list := call("note_list", map[string]any{}); !strings.Contains(list, "`build`") {
		t.Errorf("note_list:\n%s", list)
	}
	cs.Close()

	// An older Claude Code cannot replace the output: the hide is stored
	// and the agent is told.
	r.AppendTranscript(map[string]any{"type": "user", "version": "2.1.100", "uuid": "v1", "message": map[string]any{"role": "user", "content": "hi"}})
	out, _ = r.Hook("post-tool", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "/x", "content": big}}})
	if strings.Contains(out, "updatedToolOutput") || !strings.Contains(out, "cannot replace tool output") || !strings.Contains(out, "hide_read_") {
		t.Errorf("old-version post-tool output:\n%.500s", out)
	}

	// A turn that writes a file, then the user's commit.
	r.AgentTurn("Build it", map[string]string{"out.txt": "built\n"})
	shadow := strings.TrimSpace(gittest.Git(t, r.Dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/entire/"))
	notesTree := gittest.Git(t, r.Dir, "rev-parse", "entire/notes/v1:claude-code")
	steps := 0
	for _, b := range strings.Fields(shadow) {
		if strings.HasSuffix(b, "/v1") {
			continue // the metadata, hides and notes branches
		}
		steps++
		if got := gittest.Git(t, r.Dir, "rev-parse", b+":.entire/metadata/sess-1/notes"); got != notesTree {
			t.Errorf("step notes tree %s, want %s", got, notesTree)
		}
	}
	if steps != 1 {
		t.Errorf("branches: %s", shadow)
	}
	gittest.Git(t, r.Dir, "add", "out.txt")
	if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "Build output").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	cpID := ""
	for _, l := range strings.Split(gittest.Git(t, r.Dir, "log", "-1", "--format=%B"), "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			cpID = v
		}
	}
	if len(cpID) != 12 {
		t.Fatal("commit not linked")
	}
	slot := "entire/checkpoints/v1:" + cpID[:2] + "/" + cpID[2:] + "/0"
	var ids []string
	if err := json.Unmarshal([]byte(gittest.Git(t, r.Dir, "show", slot+"/hides.json")), &ids); err != nil || len(ids) != 2 || (ids[0] != id && ids[1] != id) {
		t.Errorf("hides.json = %v, %v; want [%s hide_read_...]", ids, err, id)
	}
	if got := gittest.Git(t, r.Dir, "rev-parse", slot+"/notes"); got != notesTree {
		t.Errorf("slot notes tree %s, want %s (the notes branch's tree)", got, notesTree)
	}

	// The next checkpoint lists only the hides made since this one.
	r.AppendTranscript(map[string]any{"type": "user", "version": "2.1.130", "uuid": "v2", "message": map[string]any{"role": "user", "content": "hi"}})
	out, _ = r.Hook("post-tool", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "WebFetch",
		"tool_response": map[string]any{"bytes": 1, "code": 200, "result": big, "url": "https://x"}})
	if !strings.Contains(out, `"result":"[HIDE id=hide_webfetch_`) || !strings.Contains(out, `"code":200`) {
		t.Errorf("webfetch post-tool output:\n%.300s", out)
	}
	r.AgentTurn("Build again", map[string]string{"out.txt": "built twice\n"})
	gittest.Git(t, r.Dir, "add", "out.txt")
	if out, err := e2etest.GitCmd(t, r, "commit", "-q", "-m", "Build output again").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	second := strings.TrimSpace(strings.TrimPrefix(gittest.Git(t, r.Dir, "log", "-1", "--format=%(trailers:key=Entire-Checkpoint,valueonly)"), ""))
	if len(second) != 12 || second == cpID {
		t.Fatalf("second checkpoint %q", second)
	}
	hj := gittest.Git(t, r.Dir, "show", "entire/checkpoints/v1:"+second[:2]+"/"+second[2:]+"/0/hides.json")
	if !strings.Contains(hj, "hide_webfetch_") || strings.Contains(hj, id) {
		t.Errorf("second hides.json:\n%s", hj)
	}
	gittest.Fsck(t, r.Dir)
}

// TestGeminiAfterToolHides: Gemini CLI's after-tool answers a large result
// with a deny whose reason is page 1, and a small one with {}.
func TestGeminiAfterToolHides(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	payload := func(content string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "g-1", "transcript_path": filepath.Join(r.Dir, "none.json"), "cwd": r.Dir,
			"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "make"},
			"tool_response": map[string]any{"llmContent": content, "returnDisplay": "done"}})
		return string(b)
	}
	out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, payload(e2etest.BigOutput()), "hooks", "gemini", "after-tool")
	var got struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.Decision != "deny" ||
		!strings.HasPrefix(got.Reason, "[HIDE id=hide_run_shell_command_") || !strings.HasSuffix(got.Reason, "[END page 1/14]") {
		t.Fatalf("after-tool: %d %q %s", code, out, errOut)
	}
	if list, _, _ := e2etest.RunEntire(t, r.Dir, r.Env, "", "hide", "list", "--json"); !strings.Contains(list, `"session_id": "g-1"`) && !strings.Contains(list, `"session_id":"g-1"`) {
		t.Errorf("hide list:\n%s", list)
	}
	if out, _, code := e2etest.RunEntire(t, r.Dir, r.Env, payload("small"), "hooks", "gemini", "after-tool"); code != 0 || strings.TrimSpace(out) != "{}" {
		t.Errorf("small after-tool: %d %q", code, out)
	}
}

// TestEnableRegistersMCP: enable writes .mcp.json and the approval, a second
// enable changes nothing, uninstall removes both.
func TestEnableRegistersMCP(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	env := []string{"ENTIRE_TEST_TTY=0"}
	if _, errOut, code := e2etest.RunEntire(t, dir, env, "", "enable", "--agent", "claude-code"); code != 0 {
		t.Fatalf("enable: %d %s", code, errOut)
	}
	var mcpFile struct {
		Servers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	b, err := os.ReadFile(filepath.Join(dir, ".mcp.json"))
	if err != nil || json.Unmarshal(b, &mcpFile) != nil {
		t.Fatalf(".mcp.json: %v\n%s", err, b)
	}
	if e := mcpFile.Servers["entire"]; e.Command != "entire" || strings.Join(e.Args, " ") != "mcp" {
		t.Errorf(".mcp.json entry %+v", e)
	}
	local, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.local.json"))
	if !strings.Contains(string(local), `"enabledMcpjsonServers": [`) || !strings.Contains(string(local), `"entire"`) {
		t.Errorf("settings.local.json:\n%s", local)
	}
	if _, errOut, code := e2etest.RunEntire(t, dir, env, "", "enable", "--agent", "gemini"); code != 0 {
		t.Fatalf("enable gemini: %d %s", code, errOut)
	}
	gem, _ := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json"))
	if !strings.Contains(string(gem), `"mcpServers"`) || !strings.Contains(string(gem), `"gemini"`) {
		t.Errorf("gemini settings:\n%s", gem)
	}
	before, _ := os.ReadFile(filepath.Join(dir, ".mcp.json"))
	e2etest.RunEntire(t, dir, env, "", "enable", "--agent", "claude-code")
	if after, _ := os.ReadFile(filepath.Join(dir, ".mcp.json")); string(after) != string(before) {
		t.Errorf("second enable rewrote .mcp.json")
	}
	if _, errOut, code := e2etest.RunEntire(t, dir, env, "", "disable", "--uninstall", "--force"); code != 0 {
		t.Fatalf("uninstall: %d %s", code, errOut)
	}
	for _, rel := range []string{".mcp.json", ".claude/settings.local.json"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); !os.IsNotExist(err) {
			t.Errorf("%s left after uninstall", rel)
		}
	}
	if gem, _ := os.ReadFile(filepath.Join(dir, ".gemini", "settings.json")); strings.Contains(string(gem), "mcpServers") {
		t.Errorf("gemini mcpServers left:\n%s", gem)
	}
}

// A tool output of megabytes is stored undeflated while the agent waits
// and deflated afterwards by a process of its own: the hide reads the same
// before and after, and its objects end up a fraction of its size.
func TestLargeHideDeflatedAfterward(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AppendTranscript(map[string]any{"type": "user", "version": "2.1.130", "uuid": "v0", "message": map[string]any{"role": "user", "content": "hi"}})
	var b strings.Builder
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "row %07d: a build log line that repeats as logs do\n", i)
	}
	big := b.String()
	out, _ := r.Hook("post-tool", map[string]any{
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input":    map[string]any{"command": "make"},
		"tool_response": map[string]any{"stdout": big, "stderr": "", "interrupted": false, "isImage": false},
	})
	i := strings.Index(out, "[HIDE id=")
	if i < 0 {
		t.Fatalf("post-tool output:\n%.400s", out)
	}
	id := strings.Fields(out[i+len("[HIDE id="):])[0]
	var pages int
	if j := strings.Index(out, "page=1/"); j < 0 {
		t.Fatalf("no page count:\n%.400s", out)
	} else {
		fmt.Sscanf(out[j+len("page=1/"):], "%d", &pages)
	}
	lastPage := func() string {
		t.Helper()
		show, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "hide", "show", id, "--page", fmt.Sprint(pages))
		if code != 0 {
			t.Fatalf("entire hide show: %d %s", code, errOut)
		}
		return show
	}
	before := lastPage()
	e2etest.AwaitBackground(t) // compress-objects
	if !strings.Contains(e2etest.LogText(r.Dir), "compress objects: finished") {
		t.Fatalf("the objects were not deflated:\n%s", e2etest.LogText(r.Dir))
	}
	if after := lastPage(); after != before || !strings.Contains(after, "row ") {
		t.Errorf("the hide's last page changed when deflated:\n%.300s\n---\n%.300s", before, after)
	}
	var stored int64
	filepath.Walk(filepath.Join(r.Dir, ".git", "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			stored += fi.Size()
		}
		return nil
	})
	if stored*4 > int64(len(big)) {
		t.Errorf("the objects hold %d bytes for a %d-byte output", stored, len(big))
	}
	if out, err := gittest.GitErr(r.Dir, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}
