package references

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/renderrefs"
)

// BenchmarkCleanJSON measures a transcript line without the marker (the
// common case: one scan) and a tool result line carrying a sentinel.
func BenchmarkCleanJSON(b *testing.B) {
	plain := jsonLine(b, map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "content": strings.Repeat("output line\n", 400)}}}})
	marked := jsonLine(b, map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "content": strings.Repeat("output line\n", 400) +
			sentinel(b, renderrefs.Reference{Type: "note", ID: "proj-layout"})}}}})
	for _, c := range []struct {
		name string
		line []byte
	}{{"plain", plain}, {"marked", marked}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.line)))
			for i := 0; i < b.N; i++ {
				CleanJSON(c.line)
			}
		})
	}
}
