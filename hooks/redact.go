package hooks

import (
	"fmt"
	"sync"

	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/strategy"
)

// RedactionOptions returns the redaction options of s: its
// strategy_options.redaction patterns and allow expressions. Their
// Invalid method names the expressions that do not compile, which every
// redactor built from them skips.
func RedactionOptions(s *settings.Settings) redact.Options {
	return redact.Options{Patterns: s.RedactionPatterns(), Allow: s.RedactionAllow()}
}

// lazyRedactor builds the redaction rules on first use: compiling
// gitleaks' rule set costs tens of milliseconds, which hooks that store
// nothing (a prompt submit, commit-msg) must not pay.
type lazyRedactor struct {
	once     sync.Once
	settings *settings.Settings
	r        *redact.Redactor
	warn     func(error)
	getenv   func(string) string // for panics.Inject only; nil in commands
	err      error               // a panic while building r
}

// NewRedactor returns the redaction step every stored transcript, prompt,
// context and metadata string goes through: gitleaks' rules, the entropy
// check, and s's strategy_options.redaction patterns and allowlist. The
// rules are compiled on first use; warn then receives one
// *redact.PatternError per user expression that does not compile (it is
// skipped, the others apply). The result is safe for concurrent use.
func NewRedactor(s *settings.Settings, warn func(error)) strategy.Redactor {
	return newRedactor(s, warn, nil)
}

// newRedactor is NewRedactor for a hook, whose getenv may inject a panic
// in tests (panics.Inject).
func newRedactor(s *settings.Settings, warn func(error), getenv func(string) string) *lazyRedactor {
	if s == nil {
		s = settings.Defaults()
	}
	if warn == nil {
		warn = func(error) {}
	}
	return &lazyRedactor{settings: s, warn: warn, getenv: getenv}
}

// get returns the rules, building them on first use. If building them
// panicked (in any goroutine), every later call panics on the caller's
// goroutine with that error: nothing is stored unredacted, and the hook's
// own recovery turns it into a failure.
func (l *lazyRedactor) get() *redact.Redactor {
	l.once.Do(func() {
		defer panics.Recover(&l.err)
		panics.Inject(l.getenv, "redact-rules")
		opts := RedactionOptions(l.settings)
		for _, e := range opts.Invalid() {
			l.warn(e)
		}
		// New fails only when the rule set embedded in the binary does not
		// load, which TestRedactorBuiltinRulesCompile rules out.
		r, err := redact.New(opts)
		if err != nil {
			l.warn(err)
			l.err = err
		}
		l.r = r
	})
	if l.r == nil {
		panic(fmt.Errorf("build redaction rules: %w", l.err))
	}
	return l.r
}

// Fingerprint identifies the rules in force (redact.Fingerprint), without
// building them.
func (l *lazyRedactor) Fingerprint() string {
	return redact.Fingerprint(RedactionOptions(l.settings))
}

// Prewarm starts building the rules in the background, so that a hook
// that will redact pays for it while it waits on git. A panic there is
// kept for get's callers, never let loose in this goroutine.
func (l *lazyRedactor) Prewarm() {
	go func() {
		var err error
		defer panics.Recover(&err)
		l.get()
	}()
}

// JSONLine redacts one JSONL line.
func (l *lazyRedactor) JSONLine(line []byte) []byte { return l.get().JSONLine(line) }

// JSONDoc redacts a whole JSON document.
func (l *lazyRedactor) JSONDoc(doc []byte) []byte { return l.get().JSONDoc(doc) }

// Text redacts plain text.
func (l *lazyRedactor) Text(s string) string { return l.get().Text(s) }

// TextRedactor returns the plain-text redaction of NewRedactor(s, warn),
// for the hide and note stores of the CLI and the MCP server and for what
// commands print. s nil means the default settings; warn nil ignores
// problems with the user's patterns.
func TextRedactor(s *settings.Settings, warn func(error)) func(string) string {
	return NewRedactor(s, warn).Text
}
