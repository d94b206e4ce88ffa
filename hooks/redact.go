package hooks

import (
	"github.com/entirecli/entire/redact"
	"github.com/entirecli/entire/settings"
	"github.com/entirecli/entire/strategy"
)

// newRedactor builds the redaction step every stored transcript, prompt and
// context goes through: gitleaks' rules, the entropy check, and the user's
// strategy_options.redaction patterns and allowlist. When the user's
// patterns do not compile, the default rules are used and the error is
// returned for the log.
func newRedactor(s *settings.Settings) (strategy.Redactor, error) {
	r, err := redact.New(redact.Options{Patterns: s.RedactionPatterns(), Allow: s.RedactionAllow()})
	if err == nil {
		return r, nil
	}
	def, derr := redact.New(redact.Options{})
	if derr != nil {
		return nil, derr
	}
	return def, err
}
