package main

import (
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
)

func TestLastTimestamp(t *testing.T) {
	t.Parallel()
	ts := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	for _, tc := range []struct {
		name, content string
		want          time.Time
	}{
		{"jsonl", `{"timestamp":"2026-01-01T00:00:00Z"}` + "\n" + `{"timestamp":"2026-01-02T00:00:00.5Z"}` + "\n", ts("2026-01-02T00:00:00.5Z")},
		{"jsonl last line without time", `{"timestamp":"2026-01-01T00:00:00Z"}` + "\n" + `{"type":"summary"}` + "\nnot json", ts("2026-01-01T00:00:00Z")},
		{"gemini", "{\n \"lastUpdated\": \"2026-03-01T00:00:00Z\",\n \"messages\": [{\"timestamp\": \"2026-02-01T00:00:00Z\"}]\n}", ts("2026-02-01T00:00:00Z")},
		{"gemini without message times", "{\n \"lastUpdated\": \"2026-03-01T00:00:00Z\",\n \"messages\": [{\"id\": \"1\"}]\n}", ts("2026-03-01T00:00:00Z")},
		{"none", "garbage", time.Time{}},
		{"empty", "", time.Time{}},
	} {
		if got := lastTimestamp([]byte(tc.content)); !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSessionAgent(t *testing.T) {
	t.Parallel()
	gemini := []byte("{\n  \"messages\": [{\"id\": \"1\", \"type\": \"user\", \"content\": \"hi\"}]\n}")
	claude := []byte(`{"type":"user","message":{"content":"hi"}}` + "\n")
	for _, tc := range []struct {
		label   agent.AgentType
		content []byte
		want    agent.AgentName
	}{
		{agent.AgentTypeClaudeCode, claude, agent.AgentNameClaudeCode},
		{agent.AgentTypeGemini, gemini, agent.AgentNameGemini},
		{agent.AgentTypeGemini, claude, agent.AgentNameClaudeCode}, // 0.4.x mislabelled Claude JSONL
		{"", gemini, agent.AgentNameGemini},
		{"Something Else", claude, agent.AgentNameClaudeCode},
	} {
		if got := agent.ForTranscript(tc.label, tc.content).Name(); got != tc.want {
			t.Errorf("agent.ForTranscript(%q, %.20q) = %s, want %s", tc.label, tc.content, got, tc.want)
		}
	}
}
