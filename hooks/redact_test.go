package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
)

func TestRedactorBuiltinRulesCompile(t *testing.T) {
	t.Parallel()
	s := settings.Defaults()
	s.SetOption("redaction", map[string]any{"patterns": []any{"(", `ACME-[0-9]{6}`}}) // one broken user pattern
	var warned []error
	r := NewRedactor(s, func(err error) { warned = append(warned, err) })
	out := r.Text("key AKIAIOSFODNN7EXAMPLQ here, ticket ACME-123456")
	var pe *redact.PatternError
	if len(warned) != 1 || !errors.As(warned[0], &pe) || pe.Index != 1 {
		t.Errorf("warnings = %v, want one *redact.PatternError for pattern 1", warned)
	}
	if strings.Contains(out, "AKIAIOSFODNN7EXAMPLQ") {
		t.Errorf("default rules not applied: %q", out)
	}
	if strings.Contains(out, "ACME-123456") {
		t.Errorf("the valid user pattern was dropped with the broken one: %q", out)
	}
}
