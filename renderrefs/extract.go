package renderrefs

import (
	"encoding/json"
	"strings"
)

// Extract lifts every sentinel reference out of text and returns the text
// with the sentinel lines removed, together with the valid references in
// order of appearance (duplicates included; nil when there are none).
//
// A line is a sentinel when the first occurrence of Marker on it is preceded
// only by whitespace, so a sentinel survives interleaved stdout/stderr and
// indentation. A line that mentions Marker after other text is ordinary
// content and is kept verbatim. The payload after the marker must decode as a
// JSON Reference (keys matched case-insensitively, unknown keys ignored,
// trailing whitespace such as "\r" allowed) with non-empty Type and ID;
// sentinel lines that fail this are dropped silently, never shown.
//
// Lines are split and re-joined on "\n", so "a\n<sentinel>\n" becomes "a\n".
// Text without the marker is returned unchanged. Extract never panics and is
// idempotent: Extract(clean) returns clean and no references.
func Extract(text string) (clean string, refs []Reference) {
	if !strings.Contains(text, Marker) {
		return text, nil
	}
	lines := strings.Split(text, "\n")
	kept := make([]string, 0, len(lines))
	for _, line := range lines {
		payload, ok := sentinelPayload(line)
		if !ok {
			kept = append(kept, line)
			continue
		}
		var ref Reference
		if err := json.Unmarshal([]byte(payload), &ref); err != nil {
			continue
		}
		if ref.Type == "" || ref.ID == "" {
			continue
		}
		refs = append(refs, ref)
	}
	return strings.Join(kept, "\n"), refs
}

// sentinelPayload returns what follows the marker when line is a sentinel
// line: the first occurrence of Marker is preceded only by whitespace.
func sentinelPayload(line string) (string, bool) {
	i := strings.Index(line, Marker)
	if i < 0 || strings.TrimSpace(line[:i]) != "" {
		return "", false
	}
	return line[i+len(Marker):], true
}
