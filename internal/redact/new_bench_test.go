package redact

import "testing"

// BenchmarkLoadDefaultRules measures what the first New in a process pays
// to compile the gitleaks default configuration (hooks are short processes).
func BenchmarkLoadDefaultRules(b *testing.B) {
	for b.Loop() {
		if _, err := compileGitleaksConfig(defaultConfigTOML()); err != nil {
			b.Fatal(err)
		}
	}
}
