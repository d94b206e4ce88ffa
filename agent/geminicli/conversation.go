package geminicli

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
)

// convMessage is what ReadConversation reads of a message.
type convMessage struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Content   json.RawMessage `json:"content"`
	Tokens    *struct {
		Input  int `json:"input"`
		Output int `json:"output"`
		Cached int `json:"cached"`
	} `json:"tokens"`
	ToolCalls []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Status string          `json:"status"`
		Result []struct {
			FunctionResponse struct {
				Response struct {
					Output string `json:"output"`
					Error  string `json:"error"`
				} `json:"response"`
			} `json:"functionResponse"`
		} `json:"result"`
		ResultDisplay json.RawMessage `json:"resultDisplay"`
	} `json:"toolCalls"`
}

// ReadConversation reads a Gemini CLI transcript (one JSON object, or
// JSONL with messages upserted by ID) as a conversation
// (agent.ConversationReader): user and gemini messages, their text, tool
// calls with their results, and each gemini message's tokens. The
// transcript is read whole: the client rewrites it whole on every update.
func (a *Agent) ReadConversation(r io.Reader, limit int, fn func(agent.Message) bool) error {
	data, tooLarge, err := agent.ReadAtMost(r, agent.MaxWholeTranscript)
	if err != nil || tooLarge {
		return err
	}
	data, cut := agent.ShrinkLongStrings(bytes.TrimSpace(data), limit, agent.MaxImageData)
	var msgs []convMessage
	var whole struct {
		Messages []convMessage `json:"messages"`
	}
	if json.Unmarshal(data, &whole) == nil && whole.Messages != nil {
		msgs = whole.Messages
	} else {
		at := map[string]int{}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var m convMessage
			if json.Unmarshal(line, &m) != nil || m.Type == "" {
				continue
			}
			if i, ok := at[m.ID]; ok && m.ID != "" {
				msgs[i] = m
				continue
			}
			at[m.ID] = len(msgs)
			msgs = append(msgs, m)
		}
	}
	for i, cm := range msgs {
		if cm.Type != "user" && cm.Type != "gemini" {
			continue
		}
		m := agent.Message{Role: "assistant", Time: cm.Timestamp}
		if i == 0 {
			m.Cut = cut
		}
		if cm.Type == "user" {
			m.Role = "user"
		}
		var s string
		if json.Unmarshal(cm.Content, &s) == nil {
			m.Text = s
		} else {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(cm.Content, &parts)
			var texts []string
			for _, p := range parts {
				if p.Text != "" {
					texts = append(texts, p.Text)
				}
			}
			m.Text = strings.Join(texts, "\n")
		}
		m.Prompt = m.Role == "user" && agent.PromptText(m.Text) != ""
		if t := cm.Tokens; t != nil && m.Role == "assistant" {
			m.Usage = &agent.TokenUsage{InputTokens: t.Input - t.Cached, CacheReadTokens: t.Cached, OutputTokens: t.Output, APICallCount: 1}
		}
		for _, c := range cm.ToolCalls {
			m.Calls = append(m.Calls, agent.ToolCall{ID: c.ID, Name: c.Name, Input: c.Args})
			res := agent.ToolResult{CallID: c.ID, IsError: c.Status == "error"}
			var outs []string
			for _, r := range c.Result {
				if o := r.FunctionResponse.Response.Output; o != "" {
					outs = append(outs, o)
				}
				if e := r.FunctionResponse.Response.Error; e != "" {
					outs = append(outs, e)
				}
			}
			if len(outs) == 0 {
				var display string
				if json.Unmarshal(c.ResultDisplay, &display) == nil {
					outs = append(outs, display)
				}
			}
			res.Text = strings.Join(outs, "\n")
			m.Results = append(m.Results, res)
		}
		if !fn(m) {
			return nil
		}
	}
	return nil
}
