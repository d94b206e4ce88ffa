package conclusion

import (
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"
)

// OpenTag and CloseTag delimit the conclusion block a subagent writes at the
// end of its output. Parse also accepts the <pando:conclusion> pair, which
// BriefInstruction never asks for.
const (
	OpenTag  = "<entire:conclusion>"
	CloseTag = "</entire:conclusion>"
)

// The foreign tag pair Parse also reads.
const (
	pandoOpenTag  = "<pando:conclusion>"
	pandoCloseTag = "</pando:conclusion>"
)

// Warnings Parse records, verbatim. Those with verbs are format strings.
const (
	warnInvalidYAML    = "conclusion body was not valid YAML; salvaged raw text"
	warnNotMapping     = "conclusion body was not a YAML mapping; salvaged raw text"
	warnMissingSummary = "missing summary"
	warnUnknownStatus  = "unknown status %q; left for software default"
	warnConfidence     = "confidence %v out of range [0,1]; clamped"
	warnDroppedBlank   = "dropped %d blank %s %s"
)

// block is the YAML body of a conclusion block: only the fields the model
// knows. Other keys are ignored.
type block struct {
	Status     string   `yaml:"status"`
	Summary    string   `yaml:"summary"`
	Artifacts  []string `yaml:"artifacts"`
	MemoryRefs []string `yaml:"memory_refs"`
	FollowUp   string   `yaml:"follow_up"`
	Confidence float64  `yaml:"confidence"`
}

// Parse finds the conclusion block in raw and reads it. It returns
// (conclusion, true) when a block was found and (nil, false) otherwise.
//
// The block used is the last complete one: the last CloseTag, and the last
// OpenTag before it; when <pando:conclusion> blocks are present too, the
// block whose closing tag comes last wins. A stray opening tag after it and
// earlier blocks are ignored. The text between the tags is the body.
//
// Parsing is tolerant and never discards data; what is wrong is reported in
// Conclusion.Warnings, in this order:
//
//   - a body that is not valid YAML for the schema (bad syntax, a scalar, a
//     wrong type such as "confidence: high") gives only Summary = the
//     trimmed body and the warning
//     "conclusion body was not valid YAML; salvaged raw text";
//   - an unknown status: `unknown status "<raw>"; left for software default`
//     (Status stays empty; matching is case-insensitive after trimming);
//   - a confidence outside [0,1] (or NaN): "confidence <v> out of range
//     [0,1]; clamped", clamped to 0 or 1 (NaN to 0);
//   - Summary and FollowUp are trimmed; blank Artifacts and MemoryRefs
//     entries are dropped: "dropped N blank artifacts entry|entries", then
//     the same for memory_refs;
//   - when status, summary, artifacts, memory_refs and follow_up are all
//     empty, Summary becomes the trimmed body and the warning is
//     "conclusion body was not a YAML mapping; salvaged raw text"; otherwise
//     an empty summary gives "missing summary".
//
// Warnings is nil when there are none. CapturedAt is left zero. Parse never
// panics and is safe for concurrent use.
func Parse(raw string) (*Conclusion, bool) {
	body, ok := lastBlock(raw)
	if !ok {
		return nil, false
	}
	var b block
	if err := decodeYAML(body, &b); err != nil {
		return &Conclusion{
			Summary:  strings.TrimSpace(body),
			Warnings: []string{warnInvalidYAML},
		}, true
	}

	var warnings []string
	c := &Conclusion{Status: normalizeStatus(b.Status)}
	if b.Status != "" && c.Status == "" {
		warnings = append(warnings, fmt.Sprintf(warnUnknownStatus, b.Status))
	}

	c.Confidence = b.Confidence
	if math.IsNaN(c.Confidence) || c.Confidence < 0 || c.Confidence > 1 {
		warnings = append(warnings, fmt.Sprintf(warnConfidence, c.Confidence))
		if c.Confidence > 1 {
			c.Confidence = 1
		} else {
			c.Confidence = 0
		}
	}

	c.Summary = strings.TrimSpace(b.Summary)
	c.FollowUp = strings.TrimSpace(b.FollowUp)

	var dropped int
	c.Artifacts, dropped = dropBlank(b.Artifacts)
	if dropped > 0 {
		warnings = append(warnings, droppedWarning(dropped, "artifacts"))
	}
	c.MemoryRefs, dropped = dropBlank(b.MemoryRefs)
	if dropped > 0 {
		warnings = append(warnings, droppedWarning(dropped, "memory_refs"))
	}

	switch {
	case c.Summary == "" && c.Status == "" && len(c.Artifacts) == 0 &&
		len(c.MemoryRefs) == 0 && c.FollowUp == "":
		c.Summary = strings.TrimSpace(body)
		warnings = append(warnings, warnNotMapping)
	case c.Summary == "":
		warnings = append(warnings, warnMissingSummary)
	}

	if len(warnings) > 0 {
		c.Warnings = warnings
	}
	return c, true
}

// lastBlock returns the body of the last complete block of any tag pair.
func lastBlock(raw string) (string, bool) {
	var body string
	bestClose := -1
	pairs := [...]struct{ open, close string }{
		{OpenTag, CloseTag},
		{pandoOpenTag, pandoCloseTag},
	}
	for _, tp := range pairs {
		end := strings.LastIndex(raw, tp.close)
		if end <= bestClose {
			continue
		}
		start := strings.LastIndex(raw[:end], tp.open)
		if start < 0 {
			continue
		}
		body, bestClose = raw[start+len(tp.open):end], end
	}
	return body, bestClose >= 0
}

// decodeYAML unmarshals body into b, turning a panic inside the YAML library
// into an error so that none escapes Parse.
func decodeYAML(body string, b *block) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decode conclusion yaml: panic: %v", r)
		}
	}()
	if err := yaml.Unmarshal([]byte(body), b); err != nil {
		return fmt.Errorf("decode conclusion yaml: %w", err)
	}
	return nil
}

// normalizeStatus maps raw onto the Status vocabulary, case-insensitively
// after trimming; anything else gives "".
func normalizeStatus(raw string) Status {
	switch s := Status(strings.ToLower(strings.TrimSpace(raw))); s {
	case StatusSuccess, StatusPartial, StatusFailed, StatusBlocked:
		return s
	}
	return ""
}

// dropBlank returns entries without the whitespace-only ones (kept entries
// are not trimmed) and how many were dropped. It returns nil when nothing is
// left.
func dropBlank(entries []string) ([]string, int) {
	var kept []string
	for _, e := range entries {
		if strings.TrimSpace(e) != "" {
			kept = append(kept, e)
		}
	}
	return kept, len(entries) - len(kept)
}

func droppedWarning(n int, field string) string {
	noun := "entries"
	if n == 1 {
		noun = "entry"
	}
	return fmt.Sprintf(warnDroppedBlank, n, field, noun)
}
