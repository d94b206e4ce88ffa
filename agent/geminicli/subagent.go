package geminicli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
)

// Gemini CLI's subagents are tools: the model calls DelegationTool
// ({agent_name, prompt}); the subagent runs with its own transcript,
// chats/<session-id>/<subagent-id>.jsonl beside the session's, and ends by
// calling CompletionTool ({result: {response}}).
const (
	DelegationTool = "invoke_agent"
	CompletionTool = "complete_task"
)

var (
	_ agent.Delegator           = (*Agent)(nil)
	_ agent.SubagentFinder      = (*Agent)(nil)
	_ agent.SubagentTokenReader = (*Agent)(nil)
)

// maxSubagentHead bounds how much of a subagent transcript is read to find
// its header and prompt.
const maxSubagentHead = 1 << 20

// Delegation reports whether a tool call is an invoke_agent call, with the
// agent's name as subagent type and the prompt's first line as description.
func (a *Agent) Delegation(toolName string, input []byte) (agent.Delegation, bool) {
	if toolName != DelegationTool {
		return agent.Delegation{}, false
	}
	var in struct {
		AgentName string `json:"agent_name"`
		Prompt    string `json:"prompt"`
	}
	if len(input) > 0 && json.Unmarshal(input, &in) != nil {
		return agent.Delegation{}, true
	}
	desc, _, _ := strings.Cut(strings.TrimSpace(in.Prompt), "\n")
	return agent.Delegation{SubagentType: in.AgentName, Description: desc, Prompt: in.Prompt}, true
}

// subagentHead is what identifies a subagent transcript.
type subagentHead struct {
	id      string
	path    string
	started time.Time
	prompt  string
}

// readSubagentHead reads a subagent transcript's header (sessionId,
// startTime) and its first user message, from at most maxSubagentHead
// bytes.
func readSubagentHead(path string) (subagentHead, bool) {
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return subagentHead{}, false
	}
	defer f.Close()
	h := subagentHead{path: path}
	r := bufio.NewReader(io.LimitReader(f, maxSubagentHead))
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var rec struct {
				SessionID string          `json:"sessionId"`
				StartTime time.Time       `json:"startTime"`
				ID        string          `json:"id"`
				Type      string          `json:"type"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(bytes.TrimSpace(line), &rec) == nil {
				switch {
				case rec.SessionID != "" && h.id == "":
					h.id, h.started = rec.SessionID, rec.StartTime
				case rec.Type == "user" && rec.ID != "":
					h.prompt = agent.MessageText(rec.Content)
					return h, h.id != ""
				}
			}
		}
		if err != nil {
			return h, false
		}
	}
}

// plainName reports whether s can name a file in a directory: no path
// separators, not "." or "..".
func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`)
}

// subagentDirs returns the directories that may hold the subagent
// transcripts of the session whose transcript is transcriptPath:
// chats/<sessionID> when the ID is known, else the chats/ directories whose
// name starts with the 8 characters the transcript's name ends with
// (session-<time>-<id8>.jsonl).
func subagentDirs(transcriptPath, sessionID string) []string {
	chats := filepath.Dir(transcriptPath)
	if plainName(sessionID) {
		return []string{filepath.Join(chats, sessionID)}
	}
	base := strings.TrimSuffix(filepath.Base(transcriptPath), filepath.Ext(transcriptPath))
	i := strings.LastIndexByte(base, '-')
	if i < 0 || len(base)-i-1 < 8 {
		return nil
	}
	id8 := base[i+1:]
	entries, err := os.ReadDir(chats)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), id8) {
			dirs = append(dirs, filepath.Join(chats, e.Name()))
		}
	}
	return dirs
}

// subagentHeads returns the subagent transcripts in dirs, oldest first.
func subagentHeads(dirs []string) []subagentHead {
	var heads []subagentHead
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() || filepath.Ext(e.Name()) != ".jsonl" {
				continue
			}
			if h, ok := readSubagentHead(filepath.Join(dir, e.Name())); ok {
				heads = append(heads, h)
			}
		}
	}
	sort.SliceStable(heads, func(i, j int) bool { return heads[i].started.Before(heads[j].started) })
	return heads
}

// firstStartedSince returns the earliest of heads started at or after
// since (to the millisecond, Gemini's precision) that was asked prompt.
func firstStartedSince(heads []subagentHead, prompt string, since time.Time) (subagentHead, bool) {
	since = since.Truncate(time.Millisecond)
	prompt = strings.TrimSpace(prompt)
	for _, h := range heads {
		if !h.started.Before(since) && strings.TrimSpace(h.prompt) == prompt {
			return h, true
		}
	}
	return subagentHead{}, false
}

// FindSubagent finds the transcript of the subagent that delegation d
// started at or after since: the earliest one under chats/<sessionID>/
// asked d.Prompt. Its result is the response of its last complete_task
// call.
func (a *Agent) FindSubagent(transcriptPath, sessionID string, d agent.Delegation, since time.Time) (agent.Subagent, bool) {
	h, ok := firstStartedSince(subagentHeads(subagentDirs(transcriptPath, sessionID)), d.Prompt, since)
	if !ok {
		return agent.Subagent{}, false
	}
	return agent.Subagent{ID: h.id, TranscriptPath: h.path, Result: subagentResult(h.path)}, true
}

// subagentResult returns the response of the last complete_task call in a
// subagent transcript: result.response when it is a string, else the
// result as JSON; "" when there is none.
func subagentResult(path string) string {
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	result := ""
	agent.ForEachLine(f, func(line []byte) error {
		if !bytes.Contains(line, []byte(CompletionTool)) {
			return nil
		}
		messageRecords(line, func(m *message) {
			for _, tc := range m.ToolCalls {
				if tc.Name != CompletionTool {
					continue
				}
				var args struct {
					Result json.RawMessage `json:"result"`
				}
				if json.Unmarshal(tc.Args, &args) != nil || len(args.Result) == 0 {
					continue
				}
				var r struct {
					Response *string `json:"response"`
				}
				if json.Unmarshal(args.Result, &r) == nil && r.Response != nil {
					result = *r.Response
				} else if s := strings.TrimSpace(string(args.Result)); s != "null" {
					result = s
				}
			}
		})
		return nil
	})
	return result
}

// delegationCall is an invoke_agent call seen in a transcript scan.
type delegationCall struct {
	prompt string
	at     time.Time // the model message that made the call
}

// subagentIDs resolves the invoke_agent calls of a scan to the IDs of the
// subagents they started: for each, the earliest subagent started after
// the call's message that was asked the call's prompt.
func subagentIDs(transcriptPath string, calls []delegationCall) []string {
	if len(calls) == 0 {
		return nil
	}
	heads := subagentHeads(subagentDirs(transcriptPath, ""))
	var ids []string
	for _, c := range calls {
		if h, ok := firstStartedSince(heads, c.prompt, c.at); ok {
			ids = agent.AppendUnique(ids, h.id)
		}
	}
	return ids
}

// SubagentTokenUsage sums the token usage of the given subagents' whole
// transcripts (chats/<session>/<id>.jsonl beside transcriptPath). IDs
// without a file are skipped; nil when none recorded usage.
func (a *Agent) SubagentTokenUsage(transcriptPath string, agentIDs []string) (*agent.TokenUsage, error) {
	var total agent.TokenUsage
	dirs := subagentDirs(transcriptPath, "")
	for _, id := range agentIDs {
		if !plainName(id) {
			continue
		}
		for _, dir := range dirs {
			an, err := a.ScanTranscript(filepath.Join(dir, id+".jsonl"), agent.Position{})
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			total.Add(&an.Tokens)
			break
		}
	}
	if total.IsZero() {
		return nil, nil
	}
	return &total, nil
}
