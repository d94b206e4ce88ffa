package claudecode

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/entirecli/entire/agent"
)

var (
	_ agent.TranscriptReader = (*Agent)(nil)
	_ agent.TranscriptCutter = (*Agent)(nil)
)

// skillPreamble starts the user entries Claude Code writes when it loads a
// skill; they are not prompts (SPEC 1.9).
const skillPreamble = "Base directory for this skill:"

// recordLine is the part of a transcript line ReadRecord decodes.
type recordLine struct {
	Type        string `json:"type"`
	UUID        string `json:"uuid"`
	Timestamp   string `json:"timestamp"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	// IsCompactSummary marks the summary Claude Code writes as a user
	// message when it compacts the conversation; it is not a prompt.
	IsCompactSummary bool `json:"isCompactSummary"`
	Message          *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// recordBlock is a message content block, as far as ReadRecord needs it.
type recordBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ReadRecord reads one line of a Claude Code transcript: a user line gives
// its prompt (skill preambles, meta, sidechain and compaction summaries
// give nothing), an assistant line its text and tool calls. A line that
// can only hold tool results is not decoded (they carry the bulk of a
// transcript and give no entry); objects glued on one line (a lost
// newline) are read one after the other.
func (a *Agent) ReadRecord(record []byte) agent.Record {
	if bytes.Contains(record, []byte(`"type":"tool_result"`)) && !bytes.Contains(record, []byte(`"type":"text"`)) {
		return agent.Record{}
	}
	var out agent.Record
	var v recordLine
	if json.Unmarshal(record, &v) == nil {
		out.Entries = v.entries(nil)
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(record))
	for {
		var g recordLine
		if dec.Decode(&g) != nil {
			break
		}
		out.Entries = g.entries(out.Entries)
	}
	return out
}

func (v *recordLine) entries(out []agent.Entry) []agent.Entry {
	if v.IsMeta || v.IsSidechain || v.IsCompactSummary || v.Message == nil {
		return out
	}
	at := agent.ParseTime(v.Timestamp)
	raw, blocks := contentParts(v.Message.Content)
	switch v.Type {
	case "user", "human":
		text := agent.PromptText(raw)
		if text != "" && !strings.HasPrefix(text, skillPreamble) {
			out = append(out, agent.Entry{Role: agent.RoleUser, Text: text, ID: v.UUID, Time: at})
		}
	case "assistant":
		if text := strings.TrimSpace(raw); text != "" {
			out = append(out, agent.Entry{Role: agent.RoleAssistant, Text: text, ID: v.UUID, Time: at})
		}
		for _, b := range blocks {
			if b.Type != "tool_use" || b.Name == "" {
				continue
			}
			e := agent.Entry{Role: agent.RoleTool, Tool: b.Name, Text: ToolDetail(b.Name, b.Input), ID: v.UUID, Time: at}
			if IsFileModificationTool(b.Name) {
				var in fileInput
				if json.Unmarshal(b.Input, &in) == nil {
					if p := firstNonEmpty(in.FilePath, in.NotebookPath); p != "" {
						e.Files = []string{p}
					}
				}
			}
			out = append(out, e)
		}
	}
	return out
}

// contentParts decodes a message content value once: a string, or an array
// of blocks whose texts it joins. Malformed content gives nothing.
func contentParts(content json.RawMessage) (text string, blocks []recordBlock) {
	if len(content) == 0 {
		return "", nil
	}
	switch content[0] {
	case '"':
		_ = json.Unmarshal(content, &text)
		return text, nil
	case '[':
		if json.Unmarshal(content, &blocks) != nil {
			return "", nil
		}
		var texts []string
		for _, b := range blocks {
			if (b.Type == "text" || b.Type == "") && b.Text != "" {
				texts = append(texts, b.Text)
			}
		}
		return strings.Join(texts, "\n\n"), blocks
	}
	return "", nil
}

// toolArgs holds the arguments ToolDetail looks at.
type toolArgs struct {
	Description  string `json:"description"`
	Command      string `json:"command"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Pattern      string `json:"pattern"`
	Skill        string `json:"skill"`
	URL          string `json:"url"`
}

// ToolDetail returns the most telling argument of a Claude Code tool call
// with the given raw JSON input: Skill its skill, Read its path, WebFetch
// its URL, any other its description, else command, else file_path, else
// notebook_path, else pattern. Non-object input gives "".
func ToolDetail(name string, input json.RawMessage) string {
	var a toolArgs
	if len(input) == 0 || input[0] != '{' || json.Unmarshal(input, &a) != nil {
		return ""
	}
	switch name {
	case "Skill":
		return a.Skill
	case "Read":
		return a.FilePath
	case "WebFetch":
		return a.URL
	}
	return firstNonEmpty(a.Description, a.Command, a.FilePath, a.NotebookPath, a.Pattern)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// keyedLine is the part of a line the cutter decodes.
type keyedLine struct {
	Type    string `json:"type"`
	UUID    string `json:"uuid"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// forEachLine calls fn with every decodable line of data and the offset
// just past it, until fn returns false.
func forEachLine(data []byte, fn func(l *keyedLine, end int) bool) {
	for pos := 0; pos < len(data); {
		line, next := data[pos:], len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			line, next = data[pos:pos+i], pos+i+1
		}
		var l keyedLine
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &l) == nil && !fn(&l, next) {
			return
		}
		pos = next
	}
}

// CutAfterEntry cuts a transcript byte for byte after the line whose
// "uuid" is id.
func (a *Agent) CutAfterEntry(data []byte, id string) ([]byte, bool) {
	out, found := data, false
	if id == "" {
		return out, false
	}
	forEachLine(data, func(l *keyedLine, end int) bool {
		if l.UUID == id {
			out, found = bytes.Clone(data[:end]), true
			return false
		}
		return true
	})
	return out, found
}

// ToolResultEntry returns the "uuid" of the user line with a tool_result
// block for toolUseID.
func (a *Agent) ToolResultEntry(data []byte, toolUseID string) (string, bool) {
	var found string
	forEachLine(data, func(l *keyedLine, _ int) bool {
		c := l.Message.Content
		if (l.Type != "user" && l.Type != "human") || len(c) == 0 || c[0] != '[' || !bytes.Contains(c, []byte(toolUseID)) {
			return true
		}
		var blocks []struct {
			Type      string `json:"type"`
			ToolUseID string `json:"tool_use_id"`
		}
		if json.Unmarshal(c, &blocks) != nil {
			return true
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.ToolUseID == toolUseID {
				found = l.UUID
				return false
			}
		}
		return true
	})
	return found, found != ""
}
