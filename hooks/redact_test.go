package hooks

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/settings"
)

func TestRedactorBuiltinRulesCompile(t *testing.T) {
	t.Parallel()
	s := settings.Defaults()
	s.SetOption("redaction", map[string]any{"patterns": []any{"("}}) // broken user pattern
	var warned error
	r := newRedactor(s, func(err error) { warned = err })
	out := r.Text("key AKIAIOSFODNN7EXAMPLQ here")
	if warned == nil {
		t.Error("a broken user pattern was not reported")
	}
	if strings.Contains(out, "AKIAIOSFODNN7EXAMPLQ") {
		t.Errorf("default rules not applied: %q", out)
	}
}
