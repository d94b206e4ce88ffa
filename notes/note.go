package notes

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/entirecli/entire/agent"
)

// Default quotas, passed to Save by the tools and the CLI.
const (
	// DefaultMaxBytes is the default cap on a note's content, in bytes.
	DefaultMaxBytes = 4096
	// DefaultMaxCount is the default cap on the number of notes of an agent.
	DefaultMaxCount = 64
)

// DefaultAgent is the agent namespace used when none is given: that of the
// default agent (an agent's namespace is its registry name).
const DefaultAgent = string(agent.DefaultAgentName)

// keyPattern is the rule for note keys and agent names.
const keyPattern = `[a-z0-9][a-z0-9_-]{0,63}`

// validKey reports whether s matches keyPattern, whole. (The pattern as a
// regular expression, with its {0,63}, took a millisecond to compile in
// every process, hooks included.)
func validKey(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z'
		if !alnum && (i == 0 || c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Sentinel errors, wrapped with %w; test with errors.Is. The first three
// keep the texts the note tools have always shown to models.
var (
	// ErrInvalidKey means a key does not match ^[a-z0-9][a-z0-9_-]{0,63}$.
	ErrInvalidKey = errors.New("invalid note key")
	// ErrNoteTooLarge means the content is longer than the byte cap.
	ErrNoteTooLarge = errors.New("note content exceeds size cap")
	// ErrTooManyNotes means saving a new key would pass the count cap.
	ErrTooManyNotes = errors.New("note count would exceed cap")
	// ErrNotFound means no note has the key.
	ErrNotFound = errors.New("notes: not found")
	// ErrInvalidAgent means an agent name does not match the key rule.
	ErrInvalidAgent = errors.New("notes: invalid agent name")
)

// Note is one stored fact.
type Note struct {
	// Key is the note's name, matching ^[a-z0-9][a-z0-9_-]{0,63}$.
	Key string `json:"key"`
	// Content is the full text.
	Content string `json:"content"`
	// Preview is derived from Content on save (see Preview).
	Preview string `json:"preview"`
	// InContext, when true, pins the note: its whole content goes into the
	// agent's prompt on every step (RenderInContextBlock).
	InContext bool `json:"pinned"`
	// CreatedAt is when the key was first saved (UTC).
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the note was last saved, pinned or unpinned (UTC).
	UpdatedAt time.Time `json:"updated_at"`
}

// ValidateKey returns nil when key is a valid note key, else an error
// wrapping ErrInvalidKey. It does not trim.
func ValidateKey(key string) error {
	if !validKey(key) {
		return fmt.Errorf("%w: %q (expected %s)", ErrInvalidKey, key, keyPattern)
	}
	return nil
}

// ValidateAgent returns nil when name is a valid agent namespace (same rule
// as keys), else an error wrapping ErrInvalidAgent.
func ValidateAgent(name string) error {
	if !validKey(name) {
		return fmt.Errorf("%w: %q (expected %s)", ErrInvalidAgent, name, keyPattern)
	}
	return nil
}

// previewRunes is the longest preview, in runes.
const previewRunes = 80

// Preview returns the one-line preview of content: its first line that is
// not blank, trimmed, with runs of spaces and tabs collapsed to one space,
// cut to 79 runes plus "…" when longer than 80 runes. Blank content gives "".
func Preview(content string) string {
	var line string
	for l := range strings.SplitSeq(content, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			line = t
			break
		}
	}
	if line == "" {
		return ""
	}
	var b strings.Builder
	space := false
	for _, r := range line {
		if r == ' ' || r == '\t' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	line = b.String()
	if utf8.RuneCountInString(line) <= previewRunes {
		return line
	}
	n := 0
	for i := range line {
		if n == previewRunes-1 {
			return line[:i] + "…"
		}
		n++
	}
	return line
}
