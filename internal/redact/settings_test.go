package redact

import (
	"errors"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/internal/settings"
)

// FromSettings applies the built-in rules and the settings' patterns,
// reporting (and skipping) only a pattern that does not compile.
func TestFromSettingsBuiltinRulesCompile(t *testing.T) {
	t.Parallel()
	s := settings.Defaults()
	s.SetOption("redaction", map[string]any{"patterns": []any{"(", `ACME-[0-9]{6}`}}) // one broken user pattern
	var warned []error
	r := FromSettings(s, func(err error) { warned = append(warned, err) }, nil)
	if got, want := r.Fingerprint(), Fingerprint(Options{Patterns: []string{"(", `ACME-[0-9]{6}`}}); got != want {
		t.Errorf("Fingerprint = %s, want that of the settings' options %s", got, want)
	}
	if len(warned) != 0 {
		t.Errorf("warned before the rules were built: %v", warned)
	}
	out := r.Text("key AKIAIOSFODNN7EXAMPLQ here, ticket ACME-123456")
	var pe *PatternError
	if len(warned) != 1 || !errors.As(warned[0], &pe) || pe.Index != 1 {
		t.Errorf("warnings = %v, want one *PatternError for pattern 1", warned)
	}
	if strings.Contains(out, "AKIAIOSFODNN7EXAMPLQ") {
		t.Errorf("default rules not applied: %q", out)
	}
	if strings.Contains(out, "ACME-123456") {
		t.Errorf("the valid user pattern was dropped with the broken one: %q", out)
	}
	// Built once: later uses warn no more.
	r.Text("again")
	if len(warned) != 1 {
		t.Errorf("warned %d times", len(warned))
	}
	if opts := SettingsOptions(nil); len(opts.Patterns) != 0 || len(opts.Allow) != 0 {
		t.Errorf("options of the default settings: %+v", opts)
	}
}

// A panic while the rules are built (in a Prewarm goroutine or not) makes
// Build fail and every use panic on the caller's goroutine.
func TestFromSettingsPanicWhileBuilding(t *testing.T) {
	t.Parallel()
	getenv := func(k string) string {
		if k == panics.TestEnv {
			return "redact-rules"
		}
		return ""
	}
	r := FromSettings(nil, nil, getenv)
	r.Prewarm()
	if _, err := r.Build(); err == nil || !strings.Contains(err.Error(), "build redaction rules") {
		t.Fatalf("Build = %v, want the panic's error", err)
	}
	defer func() {
		v := recover()
		err, ok := v.(error)
		var pe *panics.Error
		if !ok || !errors.As(err, &pe) {
			t.Errorf("Text panicked with %v, want the build's *panics.Error", v)
		}
	}()
	r.Text("secret")
	t.Error("Text returned without the rules")
}
