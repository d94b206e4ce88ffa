package hooks

import (
	"sync"

	"github.com/entirecli/entire/redact"
	"github.com/entirecli/entire/settings"
	"github.com/entirecli/entire/strategy"
)

// lazyRedactor builds the redaction rules on first use: compiling
// gitleaks' rule set costs tens of milliseconds, which hooks that store
// nothing (a prompt submit, commit-msg) must not pay.
type lazyRedactor struct {
	once     sync.Once
	settings *settings.Settings
	r        *redact.Redactor
	warn     func(error)
}

// newRedactor returns the redaction step every stored transcript, prompt
// and context goes through: gitleaks' rules, the entropy check, and the
// user's strategy_options.redaction patterns and allowlist. warn receives
// a problem with the user's patterns (the default rules are then used).
func newRedactor(s *settings.Settings, warn func(error)) strategy.Redactor {
	return &lazyRedactor{settings: s, warn: warn}
}

func (l *lazyRedactor) get() *redact.Redactor {
	l.once.Do(func() {
		r, err := redact.New(redact.Options{Patterns: l.settings.RedactionPatterns(), Allow: l.settings.RedactionAllow()})
		if err != nil {
			l.warn(err)
			// The built-in rules are part of the binary and always compile
			// (a test makes sure of it).
			r, _ = redact.New(redact.Options{})
		}
		l.r = r
	})
	return l.r
}

// Fingerprint identifies the rules in force (redact.Fingerprint), without
// building them.
func (l *lazyRedactor) Fingerprint() string {
	return redact.Fingerprint(redact.Options{Patterns: l.settings.RedactionPatterns(), Allow: l.settings.RedactionAllow()})
}

// Prewarm starts building the rules in the background, so that a hook
// that will redact pays for it while it waits on git.
func (l *lazyRedactor) Prewarm() { go l.get() }

// JSONLine redacts one JSONL line.
func (l *lazyRedactor) JSONLine(line []byte) []byte { return l.get().JSONLine(line) }

// JSONDoc redacts a whole JSON document.
func (l *lazyRedactor) JSONDoc(doc []byte) []byte { return l.get().JSONDoc(doc) }

// Text redacts plain text.
func (l *lazyRedactor) Text(s string) string { return l.get().Text(s) }

// TextRedactor returns the lazy plain-text redaction step of the hooks
// (gitleaks' rules, the entropy check, and s's strategy_options.redaction
// patterns and allowlist), for the hide and note stores of the CLI and the
// MCP server. The rules are compiled on the first call. warn receives a
// problem with the user's patterns (the default rules are then used); nil
// ignores it. The function is safe for concurrent use.
func TextRedactor(s *settings.Settings, warn func(error)) func(string) string {
	if s == nil {
		s = settings.Defaults()
	}
	if warn == nil {
		warn = func(error) {}
	}
	return newRedactor(s, warn).Text
}
