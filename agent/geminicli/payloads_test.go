package geminicli_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/geminicli"
)

// TestRealHookPayloads parses the payload Gemini CLI 0.61.0 sent to every
// verb (../shared/fixtures/hook-payloads/gemini-cli-0.61.0) and checks the
// normalized fields.
func TestRealHookPayloads(t *testing.T) {
	t.Parallel()
	payloads := agenttest.HookPayloads(t, "gemini-cli-0.61.0", "gemini-")
	const (
		session    = "6d88be60-7786-4e8c-ba24-fe95bd952169"
		transcript = "/home/dev/.gemini/tmp/repo/chats/session-2026-11-23T21-23-6d88be60.jsonl"
		cwd        = "/home/dev/project"
		prompt     = "SCRIPT:main DIR=/home/dev/project run the scripted main turn"
		writeInput = `{"file_path":"/home/dev/project/hello.txt","content":"hello\n"}`
	)
	// want holds the fields beyond the ones every payload has.
	want := map[string]agent.HookInput{
		"session-start":         {Source: "startup"},
		"session-end":           {Reason: "exit"},
		"before-agent":          {UserPrompt: prompt},
		"after-agent":           {UserPrompt: prompt, LastAssistantMessage: "All done (main turn).", HasLastAssistantMessage: true},
		"before-tool":           {ToolName: "write_file", ToolInput: []byte(writeInput)},
		"after-tool":            {ToolName: "write_file", ToolInput: []byte(writeInput)}, // ToolResponse below
		"before-model":          {},
		"after-model":           {},
		"before-tool-selection": {},
		"pre-compress":          {},
	}
	a := geminicli.New()
	events := map[string]string{}
	for _, s := range geminicli.HookTable() {
		events[s.Verb] = s.Event
	}
	seen := map[string]bool{}
	for _, p := range payloads {
		t.Run(p.Verb, func(t *testing.T) {
			seen[p.Verb] = true
			w, ok := want[p.Verb]
			if !ok {
				t.Fatalf("%s: no expectations for verb %q", p.Name, p.Verb)
			}
			ht, ok := a.HookTypeForVerb(p.Verb)
			if !ok {
				t.Fatalf("%s: verb %q unknown", p.Name, p.Verb)
			}
			in, err := a.ParseHookInput(ht, bytes.NewReader(p.Data))
			if err != nil {
				t.Fatalf("parse %s: %v", p.Name, err)
			}
			if in.Timestamp.IsZero() {
				t.Errorf("timestamp not parsed")
			}
			if in.RawData["hook_event_name"] != in.EventName {
				t.Errorf("RawData not kept")
			}
			if p.Verb == "after-tool" {
				checkWriteFileResponse(t, in.ToolResponse)
			}
			got := *in
			got.RawData, got.Timestamp, got.ToolResponse = nil, w.Timestamp, nil
			got.ToolInput = compactJSON(t, got.ToolInput)
			w.HookType, w.SessionID, w.SessionRef, w.Cwd, w.EventName = ht, session, transcript, cwd, events[p.Verb]
			w.ToolInput = compactJSON(t, w.ToolInput)
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s parsed\n%+v\nwant\n%+v", p.Name, got, w)
			}
		})
	}
	for _, verb := range a.GetHookNames() {
		if !seen[verb] {
			t.Errorf("no real payload for installed verb %q", verb)
		}
	}
	for verb := range seen {
		if !slices.Contains(a.GetHookNames(), verb) && !agent.IsNoOpHookVerb(a, verb) {
			t.Errorf("payload for verb %q that is neither installed nor a no-op", verb)
		}
	}
}

// checkWriteFileResponse checks the fields of a write_file tool_response.
func checkWriteFileResponse(t *testing.T, raw []byte) {
	t.Helper()
	var r struct {
		LLMContent    string `json:"llmContent"`
		ReturnDisplay struct {
			FileName  string `json:"fileName"`
			FilePath  string `json:"filePath"`
			IsNewFile bool   `json:"isNewFile"`
		} `json:"returnDisplay"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("tool_response %s: %v", raw, err)
	}
	if !strings.HasPrefix(r.LLMContent, "Successfully created and wrote to new file: /home/dev/project/hello.txt.") ||
		r.ReturnDisplay.FileName != "hello.txt" || r.ReturnDisplay.FilePath != "/home/dev/project/hello.txt" || !r.ReturnDisplay.IsNewFile {
		t.Errorf("tool_response %+v", r)
	}
}

// compactJSON compacts raw JSON; nil stays nil.
func compactJSON(t *testing.T, raw []byte) []byte {
	t.Helper()
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return buf.Bytes()
}
