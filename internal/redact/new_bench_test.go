package redact

import "testing"

// BenchmarkLoadDefaultRules measures what the first New in a process pays
// to compile the gitleaks default configuration (hooks are short
// processes), with the generated plan table as loadDefaultRules uses it.
func BenchmarkLoadDefaultRules(b *testing.B) {
	text := defaultConfigTOML()
	for b.Loop() {
		if _, err := compileGitleaksConfig(text, defaultPlanTable.forConfig(text)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadDefaultRulesNoTable is BenchmarkLoadDefaultRules deriving
// every plan up front, as a configuration without a table is compiled.
func BenchmarkLoadDefaultRulesNoTable(b *testing.B) {
	for b.Loop() {
		if _, err := compileGitleaksConfig(defaultConfigTOML(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewAfterLoad measures what New adds to the loaded default rules:
// the keyword and literal scanner.
func BenchmarkNewAfterLoad(b *testing.B) {
	if _, err := loadDefaultRules(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := New(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
