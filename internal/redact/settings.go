package redact

import (
	"fmt"
	"sync"

	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/internal/settings"
)

// SettingsOptions returns the redaction options of s: its
// strategy_options.redaction patterns and allow expressions (nil means the
// default settings). Their Invalid method names the expressions that do
// not compile, which every redactor built from them skips.
func SettingsOptions(s *settings.Settings) Options {
	if s == nil {
		s = settings.Defaults()
	}
	return Options{Patterns: s.RedactionPatterns(), Allow: s.RedactionAllow()}
}

// Lazy is the redaction step built from settings (FromSettings), the one
// every stored transcript, prompt, context and metadata string, every hide
// and note, and what commands print go through. It compiles its rules on
// first use: compiling gitleaks' rule set costs tens of milliseconds,
// which hooks that store nothing (a prompt submit, commit-msg) must not
// pay. It is safe for concurrent use.
type Lazy struct {
	once     sync.Once
	settings *settings.Settings
	warn     func(error)
	getenv   func(string) string // for panics.Inject only; nil in commands
	r        *Redactor
	err      error // why r could not be built (a panic included)
}

// FromSettings returns the redaction step of s (nil means the default
// settings): gitleaks' rules, the entropy check, and s's
// strategy_options.redaction patterns and allowlist. When the rules are
// built, warn (nil ignores them) receives one *PatternError per user
// expression that does not compile (it is skipped, the others apply).
// getenv, when not nil, lets a hook's tests inject a panic while the rules
// are built (panics.Inject, site "redact-rules"); commands pass nil.
func FromSettings(s *settings.Settings, warn func(error), getenv func(string) string) *Lazy {
	if s == nil {
		s = settings.Defaults()
	}
	if warn == nil {
		warn = func(error) {}
	}
	return &Lazy{settings: s, warn: warn, getenv: getenv}
}

// Build returns the rules, building them on first use, or why they could
// not be built (New fails only when the rule set embedded in the binary
// does not load; a panic while building is returned too).
func (l *Lazy) Build() (*Redactor, error) {
	l.once.Do(func() {
		defer panics.Recover(&l.err)
		panics.Inject(l.getenv, "redact-rules")
		opts := SettingsOptions(l.settings)
		for _, e := range opts.Invalid() {
			l.warn(e)
		}
		r, err := New(opts)
		if err != nil {
			l.warn(err)
			l.err = err
		}
		l.r = r
	})
	if l.r == nil {
		return nil, fmt.Errorf("build redaction rules: %w", l.err)
	}
	return l.r, nil
}

// Rules is Build for callers that must not go on without the rules: if
// building them failed or panicked (in any goroutine), every call panics
// on the caller's goroutine with that error, so nothing is stored
// unredacted, and a hook's own recovery turns it into a failure.
func (l *Lazy) Rules() *Redactor {
	r, err := l.Build()
	if err != nil {
		panic(err)
	}
	return r
}

// Fingerprint identifies the rules in force (see the package function
// Fingerprint), without building them.
func (l *Lazy) Fingerprint() string {
	return Fingerprint(SettingsOptions(l.settings))
}

// Prewarm starts building the rules in the background, so that a hook
// that will redact pays for it while it waits on git. A failure there is
// kept for Build's and Rules' callers, never let loose in this goroutine.
func (l *Lazy) Prewarm() {
	go func() { _, _ = l.Build() }()
}

// JSONLine redacts one JSONL line (Redactor.JSONLine).
func (l *Lazy) JSONLine(line []byte) []byte { return l.Rules().JSONLine(line) }

// JSONDoc redacts a whole JSON document (Redactor.JSONDoc).
func (l *Lazy) JSONDoc(doc []byte) []byte { return l.Rules().JSONDoc(doc) }

// Text redacts plain text (Redactor.Text).
func (l *Lazy) Text(s string) string { return l.Rules().Text(s) }
