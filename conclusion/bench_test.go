package conclusion

import (
	"strings"
	"testing"
)

var benchBlock = wrap(`
status: success
summary: |
  Added the login form and its handler. Tests pass.
artifacts:
  - web/login.go
  - web/login_test.go
memory_refs:
  - auth-flow
follow_up: wire the logout button
confidence: 0.85
`)

// BenchmarkParse measures a typical final message.
func BenchmarkParse(b *testing.B) {
	raw := "I added the login form.\n\n" + benchBlock
	for b.Loop() {
		if _, ok := Parse(raw); !ok {
			b.Fatal("no block")
		}
	}
}

// BenchmarkParseLargeOutput measures a 1 MiB output ending in a block.
func BenchmarkParseLargeOutput(b *testing.B) {
	raw := strings.Repeat("log line without tags\n", 1<<20/22) + benchBlock
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, ok := Parse(raw); !ok {
			b.Fatal("no block")
		}
	}
}

// BenchmarkFormatForParent measures rendering without resolvers.
func BenchmarkFormatForParent(b *testing.B) {
	c, _ := Parse(benchBlock)
	task := &Task{ID: "toolu_01", Engine: "claude-code", ProjectName: "shop", Conclusion: c}
	for b.Loop() {
		_ = FormatForParent(task, nil)
	}
}
