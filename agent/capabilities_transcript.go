package agent

import (
	"bytes"
	"encoding/json"
	"time"
)

// TranscriptFormat is how an agent writes a transcript file, and so how
// Entire stores it and reads a stored copy back.
type TranscriptFormat int

const (
	// TranscriptJSONL is one JSON entry per line, only ever appended to.
	// It is stored from the last stored offset on (checkpoint.AppendJSONL),
	// and a stored copy reads back with its final newline.
	TranscriptJSONL TranscriptFormat = iota
	// TranscriptDocument is one JSON document the agent rewrites whole. It
	// is stored whole, split by the agent's TranscriptChunker
	// (checkpoint.WriteWhole), and read back as stored.
	TranscriptDocument
)

// formatHead is how much of a transcript file FileFormat reads.
const formatHead = 4096

// TranscriptFormatter is implemented by agents that write more than one
// transcript format. The format is told from the content, never from the
// file name (Entire 0.4.x stored JSON documents as full.jsonl). An agent
// without it writes JSONL.
type TranscriptFormatter interface {
	// TranscriptFormat tells the format of a transcript from its start:
	// head is the first bytes of a file (4 KiB or the whole file, see
	// FileFormat), a whole stored transcript, or its first stored chunk.
	TranscriptFormat(head []byte) TranscriptFormat
}

// FormatOf returns the format of the transcript that starts with head, as
// a tells it: TranscriptJSONL when a is nil or has no TranscriptFormatter.
func FormatOf(a Agent, head []byte) TranscriptFormat {
	if f, ok := a.(TranscriptFormatter); ok {
		return f.TranscriptFormat(head)
	}
	return TranscriptJSONL
}

// FileFormat is FormatOf on the first 4 KiB of the transcript file at path,
// opened with OpenTranscript; TranscriptJSONL when a has no
// TranscriptFormatter or the file cannot be read.
func FileFormat(a Agent, path string) TranscriptFormat {
	f, ok := a.(TranscriptFormatter)
	if !ok {
		return TranscriptJSONL
	}
	file, err := OpenTranscript(path)
	if err != nil {
		return TranscriptJSONL
	}
	defer file.Close()
	buf := make([]byte, formatHead)
	n, _ := file.Read(buf)
	return f.TranscriptFormat(buf[:n])
}

// TranscriptRecognizer is implemented by agents whose transcripts can be
// told from every other agent's by their content alone. A stored label
// naming such an agent is trusted only when the agent recognises the
// content (Entire 0.4.x labelled Claude Code JSONL "Gemini CLI"); the
// transcripts of agents without it are told by their label, else taken
// for the default agent's.
type TranscriptRecognizer interface {
	// RecognizeTranscript reports whether content (a whole transcript or
	// its first stored chunk) was written by this agent. It looks at the
	// top-level structure only.
	RecognizeTranscript(content []byte) bool
}

// Recognize returns the registered agent that recognises content (see
// TranscriptRecognizer), trying agents in name order; nil when none does.
func Recognize(content []byte) Agent {
	for _, n := range List() {
		a, err := Get(n)
		if err != nil {
			continue
		}
		if r, ok := a.(TranscriptRecognizer); ok && r.RecognizeTranscript(content) {
			return a
		}
	}
	return nil
}

// ForTranscript returns the agent that wrote a stored transcript: the
// registered agent that recognises the content first, then the agent the
// stored label names (unless it is one that recognises its own transcripts
// and did not recognise this one), then the default agent.
func ForTranscript(label AgentType, content []byte) Agent {
	if a := Recognize(content); a != nil {
		return a
	}
	if label != "" && label != AgentTypeUnknown {
		if a, err := GetByAgentType(label); err == nil {
			if _, recognizes := a.(TranscriptRecognizer); !recognizes {
				return a
			}
		}
	}
	return Default()
}

// TranscriptTimer is implemented by agents whose transcripts keep the time
// of their entries otherwise than in a "timestamp" member of each JSONL
// line.
type TranscriptTimer interface {
	// LastEntryTime returns the time of the newest entry of transcript
	// content; zero when it has none.
	LastEntryTime(content []byte) time.Time
}

// LastEntryTime returns the time of the newest entry of transcript content
// as a keeps entry times: a's TranscriptTimer, else LastLineTime.
func LastEntryTime(a Agent, content []byte) time.Time {
	if t, ok := a.(TranscriptTimer); ok {
		return t.LastEntryTime(content)
	}
	return LastLineTime(content)
}

// LastLineTime returns the RFC 3339 "timestamp" of the last JSONL line of
// content that has one; zero when none does.
func LastLineTime(content []byte) time.Time {
	var ts struct {
		Timestamp string `json:"timestamp"`
	}
	trimmed := bytes.TrimSpace(content)
	for len(trimmed) > 0 {
		var l []byte
		if i := bytes.LastIndexByte(trimmed, '\n'); i >= 0 {
			l, trimmed = trimmed[i+1:], trimmed[:i]
		} else {
			l, trimmed = trimmed, nil
		}
		ts.Timestamp = ""
		if json.Unmarshal(l, &ts) == nil {
			if t := ParseTime(ts.Timestamp); !t.IsZero() {
				return t
			}
		}
	}
	return time.Time{}
}

// ParseTime parses an RFC 3339 time (fractional seconds allowed); zero when
// s is not one.
func ParseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
