package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// The registry is the only package-level mutable state: agents add themselves
// from init, everything else reads.
var (
	registryMu sync.RWMutex
	registry   = map[AgentName]Factory{}
)

// Register adds an agent factory to the registry. Called from init() in each
// agent implementation. Registering the same name again replaces the factory.
// Safe for concurrent use.
func Register(name AgentName, factory Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = factory
}

// Get returns a new instance of the agent registered under name, or an error
// wrapping ErrUnknownAgent.
func Get(name AgentName) (Agent, error) {
	registryMu.RLock()
	f, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("get agent %q: %w", name, ErrUnknownAgent)
	}
	return f(), nil
}

// List returns the registered agent names, sorted.
func List() []AgentName {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]AgentName, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// Default returns the default agent. Returns nil if the default agent is not
// registered.
func Default() Agent {
	a, err := Get(DefaultAgentName)
	if err != nil {
		return nil
	}
	return a
}

// GetByAgentType retrieves an agent by its type identifier (e.g. "Claude
// Code"). It instantiates registered agents in name order until one matches;
// that is cheap (a handful of empty structs) and not on a hot path. Unknown
// types give an error wrapping ErrUnknownAgent.
func GetByAgentType(agentType AgentType) (Agent, error) {
	for _, n := range List() {
		a, err := Get(n)
		if err != nil {
			continue
		}
		if a.Type() == agentType {
			return a, nil
		}
	}
	return nil, fmt.Errorf("get agent of type %q: %w", agentType, ErrUnknownAgent)
}

// DetectAgentTypeFromContent detects the agent type from transcript content.
// It returns AgentTypeGemini for Gemini CLI transcripts (a single JSON object
// with a non-empty `messages` array, or Gemini's JSONL whose first line is the
// session header with `projectHash`) and the empty AgentType otherwise (treat
// as JSONL). It never reads more than the top-level structure.
func DetectAgentTypeFromContent(content []byte) AgentType {
	trimmed := bytes.TrimSpace(content)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return ""
	}
	if isGeminiJSONLHeader(trimmed) {
		return AgentTypeGemini
	}
	n, ok := geminiMessageCount(trimmed)
	if ok && n > 0 {
		return AgentTypeGemini
	}
	return ""
}

// isGeminiJSONLHeader reports whether the first line of content is a Gemini
// JSONL session header ({sessionId, projectHash, startTime, ...}) and more
// lines follow or the header is the whole file.
func isGeminiJSONLHeader(content []byte) bool {
	first := content
	if i := bytes.IndexByte(content, '\n'); i >= 0 {
		first = content[:i]
	}
	var h struct {
		SessionID   string          `json:"sessionId"`
		ProjectHash string          `json:"projectHash"`
		Messages    json.RawMessage `json:"messages"`
		Type        string          `json:"type"`
	}
	if json.Unmarshal(first, &h) != nil {
		return false
	}
	return h.SessionID != "" && h.ProjectHash != "" && h.Messages == nil && h.Type == ""
}

// geminiMessageCount walks the top level of a JSON object and returns the
// length of its `messages` array; ok is false when content is not a JSON
// object or has no messages array.
func geminiMessageCount(content []byte) (n int, ok bool) {
	obj, err := ParseObject(content)
	if err != nil {
		return 0, false
	}
	raw, found := obj.Get("messages")
	if !found {
		return 0, false
	}
	var msgs []json.RawMessage
	if json.Unmarshal(raw, &msgs) != nil {
		return 0, false
	}
	return len(msgs), true
}

// ForTranscript returns the agent that wrote a stored transcript: detected
// from the content first (Entire 0.4.x labelled Claude JSONL "Gemini CLI"
// and stored Gemini JSON as full.jsonl), then the stored label, then the
// default agent.
func ForTranscript(label AgentType, content []byte) Agent {
	if DetectAgentTypeFromContent(content) == AgentTypeGemini {
		if a, err := GetByAgentType(AgentTypeGemini); err == nil {
			return a
		}
	}
	if label != AgentTypeGemini && label != "" && label != AgentTypeUnknown {
		if a, err := GetByAgentType(label); err == nil {
			return a
		}
	}
	if a, err := Get(DefaultAgentName); err == nil {
		return a
	}
	return Default()
}
