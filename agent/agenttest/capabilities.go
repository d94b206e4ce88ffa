package agenttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
)

// CapabilityCases are the agent-specific data of the checks of the optional
// capabilities the hooks, `entire enable` and `entire explain` use. A case
// list must not be empty when the agent implements its capability.
type CapabilityCases struct {
	// TaskResults are tool responses of the subagent tool and what they
	// read as (agent.TaskResultReader).
	TaskResults []TaskResultCase
	// Hides are tool calls whose result is hidden
	// (agent.ToolOutputHider).
	Hides []HideCase
	// MCPForeign is the content of the MCP servers file of an
	// agent.MCPConfigurer before enable: foreign servers and settings that
	// a register/unregister round trip keeps byte for byte.
	MCPForeign string
	// PromptOutput is what the agent's prompt program prints, and
	// PromptText the answer in it (agent.PromptCLI).
	PromptOutput, PromptText string
}

// TaskResultCase is the tool_response of one subagent tool call and what
// it reads as.
type TaskResultCase struct {
	Response string
	Want     agent.TaskResult
}

// HideCase is a post-tool hook input whose result is hidden at Threshold,
// and the text stored as the hide.
type HideCase struct {
	Name      string
	Input     agent.HookInput
	Threshold int
	Text      string
}

// testCapabilities checks each optional capability the agent implements
// against its contract; a capability the agent lacks is skipped.
func testCapabilities(t *testing.T, fx Fixture) {
	t.Run("HookAnswerer", func(t *testing.T) { t.Parallel(); testHookAnswerer(t, fx) })
	t.Run("PostToolRouter", func(t *testing.T) { t.Parallel(); testPostToolRouter(t, fx) })
	t.Run("TaskResultReader", func(t *testing.T) { t.Parallel(); testTaskResultReader(t, fx) })
	t.Run("ToolOutputHider", func(t *testing.T) { t.Parallel(); testToolOutputHider(t, fx) })
	t.Run("MCPHost", func(t *testing.T) { t.Parallel(); testMCPHost(t, fx) })
	t.Run("PromptCLI", func(t *testing.T) { t.Parallel(); testPromptCLI(t, fx) })
	t.Run("TranscriptReader", func(t *testing.T) { t.Parallel(); testTranscriptReader(t, fx) })
	t.Run("TranscriptCutter", func(t *testing.T) { t.Parallel(); testTranscriptCutter(t, fx) })
}

// capability returns the agent under test as a T, or skips the test.
func capability[T any](t *testing.T, fx Fixture) T {
	t.Helper()
	c, ok := newAgent(fx, t).(T)
	if !ok {
		t.Skipf("agent does not implement %s", reflect.TypeOf((*T)(nil)).Elem())
	}
	return c
}

func testHookAnswerer(t *testing.T, fx Fixture) {
	h := capability[agent.HookAnswerer](t, fx)
	if empty := h.EmptyHookAnswer(); empty != nil {
		if _, err := json.Marshal(empty); err != nil {
			t.Errorf("EmptyHookAnswer is not JSON: %v", err)
		}
	}
	const msg = "hook failed: boom-42"
	answer, code := h.HookFailure(msg)
	if code < 0 || code > 255 {
		t.Errorf("HookFailure exit status %d", code)
	}
	if answer == nil {
		// The message goes to stderr: a zero status would hide the
		// failure from the agent.
		if code == 0 {
			t.Errorf("HookFailure reports on stderr with exit status 0")
		}
		return
	}
	b, err := json.Marshal(answer)
	if err != nil {
		t.Fatalf("HookFailure answer is not JSON: %v", err)
	}
	if !bytes.Contains(b, []byte(msg)) {
		t.Errorf("HookFailure answer %s does not carry the message", b)
	}
}

func testPostToolRouter(t *testing.T, fx Fixture) {
	r := capability[agent.PostToolRouter](t, fx)
	a := newAgent(fx, t)
	resolver, ok := a.(agent.HookVerbResolver)
	if !ok {
		t.Fatal("a PostToolRouter must resolve its verbs (HookVerbResolver)")
	}
	verbs := map[string]bool{}
	if hh, ok := a.(agent.HookHandler); ok {
		for _, v := range hh.GetHookNames() {
			verbs[v] = true
		}
	}
	for _, c := range fx.Hooks {
		verbs[c.Verb] = true
	}
	routed := false
	for verb := range verbs {
		role := r.PostToolRole(verb)
		ht, _ := resolver.HookTypeForVerb(verb)
		if ht != agent.HookPostToolUse {
			if role != 0 {
				t.Errorf("verb %q (%s) has post-tool role %b", verb, ht, role)
			}
			continue
		}
		if role == 0 && !agent.IsNoOpHookVerb(a, verb) {
			t.Errorf("post-tool verb %q has no role", verb)
		}
		routed = routed || role != 0
		for _, need := range []struct {
			bit  agent.PostToolRole
			name string
			ok   bool
		}{
			{agent.PostToolDelegation, "Delegator", is[agent.Delegator](a)},
			{agent.PostToolTodos, "TodoTracker", is[agent.TodoTracker](a)},
			{agent.PostToolHides, "ToolOutputHider", is[agent.ToolOutputHider](a)},
		} {
			if role&need.bit != 0 && !need.ok {
				t.Errorf("verb %q has role %b but the agent is no %s", verb, need.bit, need.name)
			}
		}
	}
	if !routed {
		t.Errorf("no verb has a post-tool role")
	}
	if r.PostToolRole("no-such-verb") != 0 {
		t.Errorf("an unknown verb has a post-tool role")
	}
}

func is[T any](a agent.Agent) bool {
	_, ok := a.(T)
	return ok
}

func testTaskResultReader(t *testing.T, fx Fixture) {
	r := capability[agent.TaskResultReader](t, fx)
	if len(fx.Capabilities.TaskResults) == 0 {
		t.Fatal("no TaskResults cases")
	}
	for _, c := range fx.Capabilities.TaskResults {
		got, err := r.ReadTaskResult([]byte(c.Response))
		if err != nil || got != c.Want {
			t.Errorf("ReadTaskResult(%s) = %+v, %v; want %+v", c.Response, got, err, c.Want)
		}
	}
	for _, raw := range []string{"", `"Error: the subagent failed"`, `[1]`} {
		if got, err := r.ReadTaskResult([]byte(raw)); err != nil || got != (agent.TaskResult{}) {
			t.Errorf("ReadTaskResult(%q) = %+v, %v; want the zero result", raw, got, err)
		}
	}
	if _, err := r.ReadTaskResult([]byte(`{"agentId": `)); err == nil {
		t.Errorf("ReadTaskResult of a broken object: no error")
	}
}

func testToolOutputHider(t *testing.T, fx Fixture) {
	h := capability[agent.ToolOutputHider](t, fx)
	if len(fx.Capabilities.Hides) == 0 {
		t.Fatal("no Hides cases")
	}
	for _, c := range fx.Capabilities.Hides {
		t.Run(c.Name, func(t *testing.T) {
			// PlanHide may decode the response in place: each call
			// gets its own copy.
			in := c.Input
			in.ToolResponse = bytes.Clone(c.Input.ToolResponse)
			plan, ok := h.PlanHide(&in, c.Threshold)
			if !ok {
				t.Fatalf("no plan at threshold %d", c.Threshold)
			}
			if plan.Text != c.Text || len(plan.Text) <= c.Threshold {
				t.Errorf("plan text %q, want %q (over %d bytes)", plan.Text, c.Text, c.Threshold)
			}
			const page, note = "PAGE-1-OF-3", "NOTE-STORED"
			b, err := json.Marshal(plan.Answer(page, note))
			if err != nil {
				t.Fatalf("answer is not JSON: %v", err)
			}
			if !bytes.Contains(b, []byte(page)) && !bytes.Contains(b, []byte(note)) {
				t.Errorf("answer %s carries neither the page nor the note", b)
			}
			in = c.Input
			in.ToolResponse = bytes.Clone(c.Input.ToolResponse)
			if plan, ok := h.PlanHide(&in, len(in.ToolResponse)); ok {
				t.Errorf("plan %q at the response's own length", plan.Text)
			}
		})
	}
	for _, raw := range []string{"", "{", `"short"`, `{"x":null}`} {
		if plan, ok := h.PlanHide(&agent.HookInput{ToolName: "t", ToolResponse: []byte(raw)}, 5); ok && len(plan.Text) <= 5 {
			t.Errorf("plan %q of %q under the threshold", plan.Text, raw)
		}
	}
}

func testMCPHost(t *testing.T, fx Fixture) {
	h := capability[agent.MCPHost](t, fx)
	a := newAgent(fx, t)
	reg := h.MCPRegistration()
	for _, rel := range []string{reg.ServersFile, reg.ApprovalFile} {
		if rel != "" && (path.IsAbs(rel) || path.Clean(rel) != rel || strings.HasPrefix(rel, "..") || strings.Contains(rel, `\`)) {
			t.Errorf("file %q is not a clean relative slash path", rel)
		}
	}
	if reg.ServersFile == "" || len(reg.Args) == 0 || reg.Args[0] != "mcp" {
		t.Fatalf("registration %+v: want a servers file and `mcp` arguments", reg)
	}
	if !h.IsEntireMCPCommand("entire mcp") || h.IsEntireMCPCommand("npx other-server") {
		t.Errorf("IsEntireMCPCommand does not tell Entire's command from another")
	}
	prefixes := h.MCPToolPrefixes(agent.MCPServerName)
	if len(prefixes) == 0 {
		t.Errorf("no MCP tool prefixes")
	}
	for _, p := range prefixes {
		if !strings.Contains(p, agent.MCPServerName) || !agent.IsEntireMCPTool(p+"note_list") {
			t.Errorf("tool prefix %q: not recognised as Entire's", p)
		}
	}

	if _, ok := a.(agent.MCPConfigurer); ok {
		testMCPConfigurer(t, fx, reg)
		return
	}
	t.Run("Foreign", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		want := map[string]string{reg.ServersFile: "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"mine\"}\n  },\n  \"x\": 1\n}\n"}
		if reg.ApprovalFile != "" {
			want[reg.ApprovalFile] = `{"enabledMcpjsonServers": ["mine"], "x": 1}`
		}
		for rel, content := range want {
			writeFile(t, filepath.Join(root, rel), content)
		}
		if changed, err := agent.RegisterMCP(root, a, nil); err != nil || !changed {
			t.Fatalf("register = %v, %v", changed, err)
		}
		servers := readFile(t, filepath.Join(root, reg.ServersFile))
		var doc struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
			X int `json:"x"`
		}
		if err := json.Unmarshal(servers, &doc); err != nil {
			t.Fatalf("servers file is not JSON: %v\n%s", err, servers)
		}
		if e := doc.MCPServers[agent.MCPServerName]; e.Command != "entire" || !slices.Equal(e.Args, reg.Args) || doc.MCPServers["mine"].Command != "mine" || doc.X != 1 {
			t.Errorf("servers file after register:\n%s", servers)
		}
		if reg.ApprovalFile != "" {
			var ap struct {
				Enabled []string `json:"enabledMcpjsonServers"`
			}
			_ = json.Unmarshal(readFile(t, filepath.Join(root, reg.ApprovalFile)), &ap)
			if !slices.Contains(ap.Enabled, agent.MCPServerName) || !slices.Contains(ap.Enabled, "mine") {
				t.Errorf("approvals after register: %q", ap.Enabled)
			}
		}
		if !agent.MCPRegistered(root) {
			t.Errorf("MCPRegistered = false after register")
		}
		if changed, err := agent.RegisterMCP(root, a, nil); err != nil || changed || !bytes.Equal(readFile(t, filepath.Join(root, reg.ServersFile)), servers) {
			t.Errorf("second register changed the files: %v, %v", changed, err)
		}
		if err := agent.UnregisterMCP(root, nil); err != nil {
			t.Fatal(err)
		}
		for rel, content := range want {
			if got := readFile(t, filepath.Join(root, rel)); string(got) != content {
				t.Errorf("%s after unregister:\n got %q\nwant %q", rel, got, content)
			}
		}
	})
	t.Run("Logged", func(t *testing.T) {
		t.Parallel()
		// In a fresh work tree, what RegisterMCP creates is among
		// MCPFiles, as enable records it; the logged unregister removes
		// it all again.
		root := t.TempDir()
		log := &agent.InstallLog{}
		if _, err := agent.RegisterMCP(root, a, log); err != nil {
			t.Fatal(err)
		}
		files := agent.MCPFiles()
		for _, rel := range []string{reg.ServersFile, reg.ApprovalFile} {
			if rel != "" && !slices.Contains(files, rel) {
				t.Errorf("MCPFiles %q lacks %s", files, rel)
			}
		}
		for _, rel := range files {
			if _, err := os.Stat(filepath.Join(root, rel)); err == nil {
				log.AddCreated(rel)
			}
		}
		if err := agent.UnregisterMCP(root, log); err != nil {
			t.Fatal(err)
		}
		for _, rel := range files {
			if _, err := os.Stat(filepath.Join(root, rel)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s left after unregister: %v", rel, err)
			}
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		p := filepath.Join(root, reg.ServersFile)
		writeFile(t, p, `[1]`)
		if _, err := agent.RegisterMCP(root, a, nil); !errors.Is(err, agent.ErrInvalidSettings) {
			t.Errorf("register on a non-object: err = %v, want ErrInvalidSettings", err)
		}
		if got := readFile(t, p); string(got) != `[1]` {
			t.Errorf("invalid servers file modified: %s", got)
		}
	})
}

// testMCPConfigurer checks an MCP host that edits its own servers file:
// register on foreign content, idempotence, MCPRegistered, and an
// unregister (logged or not) that leaves the file byte for byte as it was;
// in a fresh work tree, the logged unregister removes what it created.
func testMCPConfigurer(t *testing.T, fx Fixture, reg agent.MCPRegistration) {
	a := newAgent(fx, t)
	if fx.Capabilities.MCPForeign == "" {
		t.Fatal("no MCPForeign case")
	}
	for _, logged := range []bool{false, true} {
		root := t.TempDir()
		p := filepath.Join(root, reg.ServersFile)
		writeFile(t, p, fx.Capabilities.MCPForeign)
		var log *agent.InstallLog
		if logged {
			log = &agent.InstallLog{}
		}
		if changed, err := agent.RegisterMCP(root, a, log); err != nil || !changed {
			t.Fatalf("register = %v, %v", changed, err)
		}
		after := readFile(t, p)
		if !bytes.Contains(after, []byte(fx.Capabilities.MCPForeign)) && !bytes.Contains(after, []byte(strings.TrimSpace(fx.Capabilities.MCPForeign))) {
			t.Errorf("register rewrote the foreign content:\n%s", after)
		}
		if !agent.MCPRegistered(root) {
			t.Errorf("MCPRegistered = false after register")
		}
		if changed, err := agent.RegisterMCP(root, a, log); err != nil || changed || !bytes.Equal(readFile(t, p), after) {
			t.Errorf("second register changed the file: %v, %v", changed, err)
		}
		if err := agent.UnregisterMCP(root, log); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, p); string(got) != fx.Capabilities.MCPForeign {
			t.Errorf("logged=%v: after unregister:\n got %q\nwant %q", logged, got, fx.Capabilities.MCPForeign)
		}
		if agent.MCPRegistered(root) {
			t.Errorf("MCPRegistered after unregister")
		}
	}
	root := t.TempDir()
	log := &agent.InstallLog{}
	if _, err := agent.RegisterMCP(root, a, log); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(agent.MCPFiles(), reg.ServersFile) {
		t.Errorf("MCPFiles %q lacks %s", agent.MCPFiles(), reg.ServersFile)
	}
	if err := agent.UnregisterMCP(root, log); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, reg.ServersFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after the logged unregister: %v", reg.ServersFile, err)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func testPromptCLI(t *testing.T, fx Fixture) {
	p := capability[agent.PromptCLI](t, fx)
	program, _ := p.PromptCommand()
	if program == "" || strings.ContainsAny(program, `/\ `) {
		t.Errorf("PromptCommand program %q: want a name looked up on PATH", program)
	}
	c := fx.Capabilities
	if c.PromptOutput == "" {
		t.Fatal("no PromptOutput case")
	}
	if text, ok := p.PromptAnswer([]byte(c.PromptOutput)); !ok || text != c.PromptText {
		t.Errorf("PromptAnswer = %q, %v; want %q", text, ok, c.PromptText)
	}
	for _, out := range []string{"", "plain text", `{"unrelated": 1}`} {
		if text, ok := p.PromptAnswer([]byte(out)); ok {
			t.Errorf("PromptAnswer(%q) = %q, true; want not an answer", out, text)
		}
	}
}

func testTranscriptReader(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	if _, ok := a.(agent.TranscriptReader); !ok {
		t.Fatal("the agent reads no transcripts (agent.TranscriptReader): explain and the condensed transcript would show nothing")
	}
	if agent.FormatOf(a, fx.Session.Data) == agent.TranscriptDocument {
		if _, ok := a.(agent.DocumentReader); !ok {
			t.Fatal("a document transcript needs agent.DocumentReader")
		}
	}
	// The sample session reads as both speakers, the last prompt and
	// the last assistant text among them.
	var roles = map[agent.Role][]string{}
	n, err := agent.Records(a, fx.Session.Data, func(_ int, rec agent.Record) {
		for _, e := range rec.Entries {
			if e.Role != agent.RoleUser && e.Role != agent.RoleAssistant && e.Role != agent.RoleTool {
				t.Errorf("entry %+v: unknown role", e)
			}
			if e.Role == agent.RoleTool && e.Tool == "" {
				t.Errorf("tool entry %+v without a tool name", e)
			}
			roles[e.Role] = append(roles[e.Role], e.Text)
		}
	})
	if err != nil || n == 0 {
		t.Fatalf("Records = %d, %v", n, err)
	}
	if !slices.Contains(roles[agent.RoleUser], fx.Session.LastPrompt) || !slices.Contains(roles[agent.RoleAssistant], fx.Session.LastAssistant) {
		t.Errorf("entries %q: want the prompt %q and the answer %q among them", roles, fx.Session.LastPrompt, fx.Session.LastAssistant)
	}
	// Someone else's records and broken ones read as nothing, never
	// as a failure.
	r := a.(agent.TranscriptReader)
	for _, raw := range []string{"", "{", "[1,2]", `{"type":42}`, `"text"`, "null", `{"role":"user","content":7}`} {
		_ = r.ReadRecord([]byte(raw))
	}
}

// testTranscriptCutter checks the cut of a task checkpoint on the sample
// session.
func testTranscriptCutter(t *testing.T, fx Fixture) {
	c := capability[agent.TranscriptCutter](t, fx)
	sc := fx.Session
	if sc.TruncateID == "" || sc.ToolUseID == "" {
		t.Fatal("a TranscriptCutter needs Session.TruncateID and ToolUseID")
	}
	if id, ok := c.ToolResultEntry(sc.Data, sc.ToolUseID); !ok || id != sc.ToolResultID {
		t.Errorf("ToolResultEntry(%q) = %q, %v; want %q", sc.ToolUseID, id, ok, sc.ToolResultID)
	}
	if _, ok := c.ToolResultEntry(sc.Data, "no-such-tool-use"); ok {
		t.Errorf("ToolResultEntry found a missing tool use")
	}
	orig := bytes.Clone(sc.Data)
	cut, ok := c.CutAfterEntry(sc.Data, sc.TruncateID)
	if !ok || (sc.Truncated != nil && !bytes.Equal(cut, sc.Truncated)) {
		t.Errorf("CutAfterEntry = %v:\n%s\nwant\n%s", ok, cut, sc.Truncated)
	}
	if !bytes.Equal(sc.Data, orig) {
		t.Errorf("CutAfterEntry modified its input")
	}
	if whole, ok := c.CutAfterEntry(sc.Data, "no-such-id"); ok || !bytes.Equal(whole, sc.Data) {
		t.Errorf("CutAfterEntry with an unknown id = %v, changed the data", ok)
	}
}
