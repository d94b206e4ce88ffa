package geminicli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/entirecli/entire/agent"
)

// ChunkTranscript splits a transcript into chunks of at most maxSize bytes
// (maxSize <= 0 means agent.MaxChunkSize). Content that fits is returned as
// one chunk, unchanged. JSONL content is split at lines (agent.ChunkJSONL).
// A single-JSON document is split between messages: every chunk is a
// compact, valid JSON object; chunk 0 keeps all other top-level keys (in
// order) and the first messages, later chunks are {"messages":[...]}. A
// single message larger than maxSize is an error wrapping
// agent.ErrLineTooLarge. Invalid JSON falls back to line chunking.
func (a *Agent) ChunkTranscript(content []byte, maxSize int) ([][]byte, error) {
	if maxSize <= 0 {
		maxSize = agent.MaxChunkSize
	}
	if len(content) <= maxSize {
		return [][]byte{content}, nil
	}
	if DetectFormat(content) == FormatJSONL {
		return agent.ChunkJSONL(content, maxSize)
	}
	doc, msgs, ok := messagesDocument(content)
	if !ok {
		return agent.ChunkJSONL(content, maxSize)
	}
	doc.Set("messages", json.RawMessage("[]"))
	head := doc.Compact()             // chunk 0 envelope, `[]` to be filled
	tail := []byte(`{"messages":[]}`) // later chunks' envelope

	var chunks [][]byte
	var cur []json.RawMessage
	size := len(head)
	envelope := func() []byte {
		if len(chunks) == 0 {
			return head
		}
		return tail
	}
	flush := func() {
		env := envelope()
		i := bytes.LastIndex(env, []byte("[]"))
		var out bytes.Buffer
		out.Write(env[:i])
		out.Write(agent.CompactArray(cur))
		out.Write(env[i+2:])
		chunks = append(chunks, out.Bytes())
		cur = nil
		size = len(tail)
	}
	for n, m := range msgs {
		var c bytes.Buffer
		if err := json.Compact(&c, m); err != nil {
			return nil, fmt.Errorf("chunk gemini transcript: message %d: %w", n, err)
		}
		msg := c.Bytes()
		if len(envelope())+len(msg)+1 > maxSize && len(cur) == 0 {
			return nil, fmt.Errorf("chunk gemini transcript: message %d is %d bytes, chunk limit %d: %w", n, len(msg), maxSize, agent.ErrLineTooLarge)
		}
		if size+len(msg)+1 > maxSize {
			flush()
			if len(tail)+len(msg)+1 > maxSize {
				return nil, fmt.Errorf("chunk gemini transcript: message %d is %d bytes, chunk limit %d: %w", n, len(msg), maxSize, agent.ErrLineTooLarge)
			}
		}
		cur = append(cur, msg)
		size += len(msg) + 1
	}
	if len(cur) > 0 || len(chunks) == 0 {
		flush()
	}
	return chunks, nil
}

// messagesDocument parses content as a single-document transcript: a JSON
// object whose "messages" member is an array. Chunking splits only such a
// document by messages, and reassembly joins chunks that way only when the
// first chunk is one, so both always take the same view of a file (anything
// else is chunked and joined as lines).
func messagesDocument(content []byte) (*agent.Object, []json.RawMessage, bool) {
	doc, err := agent.ParseObject(content)
	if err != nil {
		return nil, nil, false
	}
	var msgs []json.RawMessage
	if raw, ok := doc.Get("messages"); !ok || json.Unmarshal(raw, &msgs) != nil {
		return nil, nil, false
	}
	return doc, msgs, true
}

// ReassembleTranscript reverses ChunkTranscript. A single chunk is returned
// unchanged. Chunks of a single-JSON document (chunk 0 is an object whose
// `messages` member is an array) are merged into one document: chunk 0's keys in order,
// messages concatenated, indented with two spaces like Gemini CLI writes it.
// Anything else is joined as JSONL.
func (a *Agent) ReassembleTranscript(chunks [][]byte) ([]byte, error) {
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	if len(chunks) == 0 {
		return nil, nil
	}
	doc, _, ok := messagesDocument(chunks[0])
	if !ok {
		return agent.ReassembleJSONL(chunks), nil
	}
	var all []json.RawMessage
	for _, c := range chunks {
		_, msgs, ok := messagesDocument(c)
		if !ok {
			// Not chunks of one document after all (JSONL whose first
			// line looks like one): lines, as they were split.
			return agent.ReassembleJSONL(chunks), nil
		}
		all = append(all, msgs...)
	}
	doc.Set("messages", agent.CompactArray(all))
	return doc.Indent("  "), nil
}
