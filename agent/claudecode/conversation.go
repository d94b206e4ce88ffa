package claudecode

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
)

// errStop ends a line loop early.
var errStop = errors.New("stop")

// convLine is what ReadConversation reads of a transcript line.
type convLine struct {
	Type        string    `json:"type"`
	Timestamp   time.Time `json:"timestamp"`
	IsSidechain bool      `json:"isSidechain"`
	IsMeta      bool      `json:"isMeta"`
	Message     *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			Input       int `json:"input_tokens"`
			CacheCreate int `json:"cache_creation_input_tokens"`
			CacheRead   int `json:"cache_read_input_tokens"`
			Output      int `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// convBlock is a content block of a message.
type convBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// ReadConversation reads a Claude Code transcript (JSONL) as a
// conversation (agent.ConversationReader): user and assistant lines, their
// text, tool_use and tool_result blocks and images, and each assistant
// line's usage.
func (a *Agent) ReadConversation(r io.Reader, limit int, fn func(agent.Message) bool) error {
	_, _, err := agent.ForEachLine(r, func(raw []byte) error {
		line, cut := agent.ShrinkLongStrings(raw, limit, agent.MaxImageData)
		var l convLine
		if json.Unmarshal(line, &l) != nil || l.Message == nil || (l.Type != "user" && l.Type != "assistant") || l.IsMeta {
			return nil
		}
		m := agent.Message{Role: l.Type, Time: l.Timestamp, Sidechain: l.IsSidechain, Cut: cut}
		if u := l.Message.Usage; u != nil && l.Type == "assistant" {
			m.Usage = &agent.TokenUsage{InputTokens: u.Input, CacheCreationTokens: u.CacheCreate, CacheReadTokens: u.CacheRead, OutputTokens: u.Output, APICallCount: 1}
		}
		var text string
		if json.Unmarshal(l.Message.Content, &text) == nil {
			m.Text = text
			m.Prompt = l.Type == "user" && agent.PromptText(text) != ""
		} else {
			var blocks []convBlock
			if json.Unmarshal(l.Message.Content, &blocks) != nil {
				return nil
			}
			var texts []string
			for _, b := range blocks {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "image":
					if img, ok := blockImage(b); ok {
						m.Images = append(m.Images, img)
					}
				case "tool_use":
					m.Calls = append(m.Calls, agent.ToolCall{ID: b.ID, Name: b.Name, Input: b.Input})
				case "tool_result":
					m.Results = append(m.Results, resultOf(b))
				}
			}
			m.Text = strings.Join(texts, "\n\n")
			m.Prompt = l.Type == "user" && len(m.Results) == 0 && agent.PromptText(m.Text) != ""
		}
		if !fn(m) {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// blockImage returns the base64 image of an image block.
func blockImage(b convBlock) (agent.Image, bool) {
	if b.Source == nil || b.Source.Type != "base64" || b.Source.Data == "" {
		return agent.Image{}, false
	}
	return agent.Image{MediaType: b.Source.MediaType, Data: b.Source.Data}, true
}

// resultOf reads a tool_result block: its content is a string or blocks
// of text and images.
func resultOf(b convBlock) agent.ToolResult {
	res := agent.ToolResult{CallID: b.ToolUseID, IsError: b.IsError}
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		res.Text = s
		return res
	}
	var parts []convBlock
	if json.Unmarshal(b.Content, &parts) != nil {
		return res
	}
	var texts []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image":
			if img, ok := blockImage(p); ok {
				res.Images = append(res.Images, img)
			}
		}
	}
	res.Text = strings.Join(texts, "\n")
	return res
}
