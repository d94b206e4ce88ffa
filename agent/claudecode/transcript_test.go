package claudecode_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/claudecode"
)

func writeTranscript(t testing.TB, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, joinLines(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScanTranscript(t *testing.T) {
	t.Parallel()
	path := writeTranscript(t, t.TempDir(), "s.jsonl", sessionLines...)
	an, err := claudecode.New().ScanTranscript(path, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Fix the bug", "Thanks, now add tests"}; !reflect.DeepEqual(an.Prompts, want) {
		t.Errorf("Prompts = %q, want %q", an.Prompts, want)
	}
	if an.LastAssistant != "Added tests." {
		t.Errorf("LastAssistant = %q", an.LastAssistant)
	}
	if want := []agent.ToolUse{{Name: "Edit", Detail: "/repo/a.go"}}; !reflect.DeepEqual(an.ToolUses, want) {
		t.Errorf("ToolUses = %+v", an.ToolUses)
	}
	wantTok := agent.TokenUsage{InputTokens: 4, CacheCreationTokens: 10, CacheReadTokens: 100, OutputTokens: 9, APICallCount: 2}
	if !reflect.DeepEqual(an.Tokens, wantTok) {
		t.Errorf("Tokens = %+v, want %+v", an.Tokens, wantTok)
	}
	if an.To.Entries != len(sessionLines) || an.To.LastID != "a3" || an.To.Offset != int64(len(joinLines(sessionLines))) {
		t.Errorf("To = %+v", an.To)
	}
	// From the middle (by offset and by line count) only the tail is seen.
	mid := agent.Position{Entries: 4, Offset: int64(len(joinLines(sessionLines[:4])))}
	for _, from := range []agent.Position{mid, {Entries: 4}} {
		tail, err := claudecode.New().ScanTranscript(path, from)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tail.Prompts, []string{"Thanks, now add tests"}) || len(tail.ModifiedFiles) != 0 || tail.Tokens.APICallCount != 1 || tail.To != an.To {
			t.Errorf("tail scan from %+v = %+v", from, tail)
		}
	}
	// A position past the end of a rewritten (shorter) file restarts.
	re, err := claudecode.New().ScanTranscript(path, agent.Position{Entries: 99, Offset: 1 << 20})
	if err != nil || re.From != (agent.Position{}) || re.To != an.To {
		t.Errorf("scan past end = %+v, %v", re, err)
	}
}

func TestScanTranscriptSplitResponsesAndNoise(t *testing.T) {
	t.Parallel()
	lines := []string{
		// One API response split over three lines, output_tokens growing.
		`{"type":"assistant","requestId":"r1","message":{"id":"m1","content":[{"type":"thinking","thinking":"..."}],"usage":{"input_tokens":5,"cache_read_input_tokens":50,"output_tokens":1}},"uuid":"1"}`,
		`{"type":"assistant","requestId":"r1","message":{"id":"m1","content":[{"type":"text","text":"Hi"}],"usage":{"input_tokens":5,"cache_read_input_tokens":50,"output_tokens":1}},"uuid":"2"}`,
		`{"type":"assistant","requestId":"r1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"MultiEdit","input":{"file_path":"/r/m.go","edits":[]}}],"usage":{"input_tokens":5,"cache_read_input_tokens":50,"output_tokens":30}},"uuid":"3"}`,
		// Synthetic error reply: not an API call.
		`{"type":"assistant","isApiErrorMessage":true,"message":{"id":"m2","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}],"usage":{"input_tokens":0,"output_tokens":0}},"uuid":"4"}`,
		// Glued objects on one line: both are decoded.
		`{"type":"assistant","message":{"id":"m3","content":[{"type":"tool_use","id":"t2","name":"NotebookEdit","input":{"notebook_path":"/r/n.ipynb"}}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"5"}{"type":"summary","summary":"x","leafUuid":"5"}`,
		`not json at all`,
		`{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>"},"uuid":"6"}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"},"uuid":"7"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"Spawned.\nagentId: abc123 (for resuming)"}]},"uuid":"8"}`,
		`{"type":"user","toolUseResult":{"status":"async_launched","agentId":"def456"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t8","content":"x"}]},"uuid":"9"}`,
		// A background subagent counts when its notification says it
		// stopped (Claude Code 2.1.332), not at its launch; the
		// notification is no prompt.
		`{"type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>def456</task-id>\n<tool-use-id>t8</tool-use-id>\n<status>completed</status>\n<result>done</result>\n</task-notification>"},"uuid":"9b"}`,
		`{"type":"user","toolUseResult":"Error: failed","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t7","is_error":true,"content":"Error"}]},"uuid":"10"}`,
		// 1.0 inline sidechain: usage to SubagentTokens, writes counted,
		// prompt not a human prompt.
		`{"type":"user","isSidechain":true,"message":{"role":"user","content":"Sub task prompt"},"uuid":"11"}`,
		`{"type":"assistant","isSidechain":true,"message":{"id":"s1","content":[{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"/r/sub.go"}},{"type":"text","text":"sub says"}],"usage":{"input_tokens":7,"output_tokens":3}},"uuid":"12"}`,
		// 2.1 agent_progress: subagent writes counted, no tokens.
		`{"type":"progress","data":{"type":"agent_progress","agentId":"p1","message":{"type":"assistant","message":{"id":"s2","content":[{"type":"tool_use","id":"t4","name":"Edit","input":{"file_path":"/r/prog.go"}}],"usage":{"input_tokens":100,"output_tokens":100}}}},"uuid":"13"}`,
	}
	an, err := claudecode.New().ScanTranscript(writeTranscript(t, t.TempDir(), "s.jsonl", lines...), agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	wantTok := agent.TokenUsage{InputTokens: 6, CacheReadTokens: 50, OutputTokens: 31, APICallCount: 2,
		SubagentTokens: &agent.TokenUsage{InputTokens: 7, OutputTokens: 3, APICallCount: 1}}
	if !reflect.DeepEqual(an.Tokens, wantTok) {
		t.Errorf("Tokens = %+v (sub %+v), want %+v", an.Tokens, an.Tokens.SubagentTokens, wantTok)
	}
	if want := []string{"/r/m.go", "/r/n.ipynb", "/r/sub.go", "/r/prog.go"}; !reflect.DeepEqual(an.ModifiedFiles, want) {
		t.Errorf("ModifiedFiles = %q, want %q", an.ModifiedFiles, want)
	}
	if len(an.Prompts) != 0 {
		t.Errorf("Prompts = %q, want none", an.Prompts)
	}
	if want := []string{"abc123", "def456"}; !reflect.DeepEqual(an.SubagentIDs, want) {
		t.Errorf("SubagentIDs = %q, want %q", an.SubagentIDs, want)
	}
	if an.LastAssistant != "API Error: 500" || an.To.Entries != len(lines) || an.To.LastID != "13" {
		t.Errorf("LastAssistant %q, To %+v", an.LastAssistant, an.To)
	}
	if len(an.ToolUses) != 2 {
		t.Errorf("ToolUses (main chain only) = %+v", an.ToolUses)
	}
}

func TestSubagentTokenUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	main := writeTranscript(t, dir, "sess-1.jsonl", `{"type":"user","message":{"content":"go"},"uuid":"1"}`)
	sub := func(id string, in int) string {
		return `{"type":"assistant","isSidechain":true,"agentId":"` + id + `","message":{"id":"` + id + `-m","content":[],"usage":{"input_tokens":` + strings.Repeat("1", in) + `,"output_tokens":2}},"uuid":"x"}`
	}
	writeTranscript(t, dir, "sess-1/subagents/agent-aaa.jsonl", sub("aaa", 1)) // 2.1 layout: 1 input
	writeTranscript(t, dir, "agent-bbb.jsonl", sub("bbb", 2))                  // 2.0 layout: 11 input
	writeTranscript(t, dir, "agent-aaa.jsonl", sub("aaa", 3))                  // shadowed by the 2.1 file
	a := claudecode.New()
	got, err := a.SubagentTokenUsage(main, []string{"aaa", "bbb", "missing", "../x"})
	if err != nil {
		t.Fatal(err)
	}
	want := &agent.TokenUsage{InputTokens: 12, OutputTokens: 4, APICallCount: 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SubagentTokenUsage = %+v, want %+v", got, want)
	}
	if none, err := a.SubagentTokenUsage(main, []string{"missing"}); none != nil || err != nil {
		t.Errorf("no files: %+v, %v", none, err)
	}
	// The real 2.0 "warmup" subagent files parse and carry usage.
	for _, p := range agenttest.TranscriptFixtures(t, "claude-code") {
		if !strings.Contains(p, "agtrace__agent-") {
			continue
		}
		d := t.TempDir()
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "agtrace__agent-"), ".jsonl")
		data, _ := os.ReadFile(p)
		if err := os.WriteFile(filepath.Join(d, "agent-"+id+".jsonl"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		u, err := a.SubagentTokenUsage(filepath.Join(d, "main.jsonl"), []string{id})
		if err != nil || u == nil || u.APICallCount == 0 {
			t.Errorf("%s: usage %+v, %v", p, u, err)
		}
	}
}

// TestFixturesParse scans every real transcript and checks basic sanity.
func TestFixturesParse(t *testing.T) {
	t.Parallel()
	a := claudecode.New()
	for _, path := range agenttest.TranscriptFixtures(t, "claude-code") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		an, err := a.ScanTranscript(path, agent.Position{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// Stored transcripts lack the final newline: a file scan leaves
		// that last line for later, AnalyzeTranscript includes it.
		if an.To.Entries != bytes.Count(data, []byte("\n")) || an.To.Offset != int64(bytes.LastIndexByte(data, '\n')+1) || an.To.LastID == "" {
			t.Errorf("%s: end position %+v", filepath.Base(path), an.To)
		}
		mem := claudecode.AnalyzeTranscript(data, agent.Position{})
		lines := bytes.Count(data, []byte("\n"))
		if !bytes.HasSuffix(data, []byte("\n")) {
			lines++
		}
		if mem.To.Entries != lines || mem.To.Offset != int64(len(data)) {
			t.Errorf("%s: in-memory end position %+v, want %d lines", filepath.Base(path), mem.To, lines)
		}
		if an.Tokens.APICallCount == 0 && an.Tokens.SubagentTokens == nil {
			t.Errorf("%s: no API calls found", filepath.Base(path))
		}
		isSub := strings.Contains(path, "agtrace__agent-")
		if !isSub && (len(an.Prompts) == 0 && !strings.Contains(path, "cli__f8")) {
			t.Errorf("%s: no prompts", filepath.Base(path))
		}
		if n, err := a.GetTranscriptPosition(path); err != nil || n != an.To.Entries {
			t.Errorf("%s: GetTranscriptPosition = %d, %v", filepath.Base(path), n, err)
		}
	}
	if n, err := a.GetTranscriptPosition(filepath.Join(t.TempDir(), "missing.jsonl")); n != 0 || err != nil {
		t.Errorf("missing transcript position = %d, %v", n, err)
	}
	files, pos, err := a.ExtractModifiedFilesFromOffset(filepath.Join(t.TempDir(), "missing.jsonl"), 3)
	if files != nil || pos != 0 || err != nil {
		t.Errorf("missing transcript: %v %d %v", files, pos, err)
	}
}

// metadataDiff lists, per fixture, the metadata files_touched entries our
// transcript analysis does not report, and why the difference is expected.
// Everything not listed must match exactly.
var metadataDiff = map[string]struct {
	onlyInMetadata []string
	why            string
}{
	"cli__0e-3fdc072c53-0": {
		[]string{"cmd/entire/cli/hooks_geminicli_handlers.go", "cmd/entire/cli/strategy/phase_prepare_commit_msg_test.go"},
		"written before transcript_lines_at_start (446), i.e. in an earlier checkpoint of the same session; " +
			"the metadata's files_touched accumulates over the session, ours covers the checkpoint slice, which is right for this checkpoint " +
			"(the test checks they appear when scanning from line 0)",
	},
	"cli__76-62d755ef9f-2": {
		[]string{"cmd/entire/cli/agent/geminicli/hooks.go", "cmd/entire/cli/agent/geminicli/hooks_test.go",
			"cmd/entire/cli/hooks_claudecode_handlers.go", "cmd/entire/cli/hooks_geminicli_handlers.go",
			"cmd/entire/cli/integration_test/gemini_concurrent_session_test.go", "cmd/entire/cli/integration_test/hooks.go",
			"cmd/entire/cli/integration_test/testenv.go"},
		"no Write/Edit of these files exists in the stored transcript (it starts mid-session, after compaction, at a stop_hook_summary); " +
			"the metadata merged files from the session's 6 checkpoints and git status. Ours is right for what this transcript shows",
	},
	"cli__8e-0a64736bc7-0": {
		[]string{"cmd/entire/cli/commands/help.go"},
		"the file was moved away by a shell command (git status saw a deletion); shell-made changes are not in tool inputs, so only git can report them",
	},
	"cli__e2-775d4606d9-0": {
		[]string{"docs/color.md"},
		"written by subagent ab94da7 in its own transcript file, which the checkpoint did not store; we report the subagent id instead",
	},
}

func TestMetadataComparison(t *testing.T) {
	t.Parallel()
	dir := agenttest.TranscriptFixtureDir(t, "claude-code")
	metas, _ := filepath.Glob(filepath.Join(dir, "cli__*-metadata.json"))
	if len(metas) == 0 {
		t.Skip("no metadata fixtures")
	}
	for _, m := range metas {
		name := strings.TrimSuffix(filepath.Base(m), "-metadata.json")
		var md struct {
			Files      []string          `json:"files_touched"`
			LinesStart int               `json:"transcript_lines_at_start"`
			CkptStart  int               `json:"checkpoint_transcript_start"`
			Tokens     *agent.TokenUsage `json:"token_usage"`
		}
		raw, _ := os.ReadFile(m)
		if err := json.Unmarshal(raw, &md); err != nil {
			t.Fatal(err)
		}
		start := max(md.LinesStart, md.CkptStart)
		path := filepath.Join(dir, name+"-full.jsonl")
		content, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		slice := claudecode.AnalyzeTranscript(content, agent.Position{Entries: start})
		whole := claudecode.AnalyzeTranscript(content, agent.Position{})
		// The repository root is the session's (last) working directory;
		// writes under another checkout's path (cli__37 was resumed from a
		// different clone) fall outside the repository and are dropped.
		root := lastCwd(t, path)
		ours := agent.RepoRelative(root, "", slice.ModifiedFiles)
		var onlyMeta, onlyOurs []string
		for _, f := range md.Files {
			if !slices.Contains(ours, f) {
				onlyMeta = append(onlyMeta, f)
			}
		}
		for _, f := range ours {
			if !slices.Contains(md.Files, f) {
				onlyOurs = append(onlyOurs, f)
			}
		}
		diff := metadataDiff[name]
		if !reflect.DeepEqual(onlyMeta, diff.onlyInMetadata) || len(onlyOurs) > 0 {
			t.Errorf("%s: files only in metadata %q (expected %q: %s), only ours %q", name, onlyMeta, diff.onlyInMetadata, diff.why, onlyOurs)
		}
		if name == "cli__0e-3fdc072c53-0" {
			all := agent.RepoRelative(root, "", whole.ModifiedFiles)
			for _, f := range diff.onlyInMetadata {
				if !slices.Contains(all, f) {
					t.Errorf("%s: %s not written before the checkpoint start either", name, f)
				}
			}
		}
		if name == "cli__e2-775d4606d9-0" && !slices.Contains(slice.SubagentIDs, "ab94da7") {
			t.Errorf("%s: subagent id not reported: %q", name, slice.SubagentIDs)
		}
		if md.Tokens == nil {
			continue
		}
		// The metadata's token_usage equals our figure for the WHOLE file,
		// even where transcript_lines_at_start > 0: the original counted
		// every line, so its figure includes earlier checkpoints' calls.
		// Our slice figure (from the start line) is the right one for this
		// checkpoint and is smaller exactly when the start is > 0.
		got := whole.Tokens
		got.SubagentTokens = nil
		if name == "cli__0e-3fdc072c53-0" {
			// One synthetic API-error reply (model "<synthetic>", zero
			// usage) that the original counted as an API call; no API call
			// was made, so ours is right.
			got.APICallCount++
		}
		if !reflect.DeepEqual(&got, md.Tokens) {
			t.Errorf("%s: whole-file tokens %+v, metadata %+v", name, got, md.Tokens)
		}
		if start > 0 && slice.Tokens.APICallCount >= whole.Tokens.APICallCount {
			t.Errorf("%s: slice tokens %+v not smaller than whole-file %+v", name, slice.Tokens, whole.Tokens)
		}
		if start == 0 && !reflect.DeepEqual(slice.Tokens, whole.Tokens) {
			t.Errorf("%s: slice from 0 differs from whole", name)
		}
	}
}

func lastCwd(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cwd := ""
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e struct {
			Cwd string `json:"cwd"`
		}
		if json.Unmarshal(line, &e) == nil && e.Cwd != "" {
			cwd = e.Cwd
		}
	}
	return cwd
}

func TestScanHugeLine(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 6<<20)
	lines := []string{
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"` + big + `"}]},"uuid":"big"}`,
		`{"type":"user","message":{"role":"user","content":"after the big line"},"uuid":"after"}`,
	}
	an, err := claudecode.New().ScanTranscript(writeTranscript(t, t.TempDir(), "big.jsonl", lines...), agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if an.To.Entries != 2 || an.To.LastID != "after" || !reflect.DeepEqual(an.Prompts, []string{"after the big line"}) {
		t.Errorf("huge line: %+v", an.To)
	}
}
