package explain

import (
	"fmt"
	"strings"
	"testing"
)

// syntheticTranscript is a Claude Code transcript of n turns shaped like a
// real one: the bulk is in tool results (file contents, command output).
func syntheticTranscript(n int) []byte {
	var b strings.Builder
	bulk := strings.Repeat("line of output ", 400)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","message":{"role":"user","content":"Prompt %d"}}`+"\n", i, i)
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a%d","message":{"id":"m%d","content":[{"type":"text","text":"Reading."},{"type":"tool_use","id":"t%d","name":"Read","input":{"file_path":"f%d.go"}}]}}`+"\n", i, i, i, i)
		fmt.Fprintf(&b, `{"type":"user","uuid":"r%d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"%s"}]}}`+"\n", i, i, bulk)
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"d%d","message":{"id":"n%d","content":[{"type":"text","text":"Done."}]}}`+"\n", i, i)
	}
	return []byte(b.String())
}

func BenchmarkParseTranscript(b *testing.B) {
	data := syntheticTranscript(2000) // about 12 MB
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		entries, err := ParseTranscript(data, 0)
		if err != nil || len(entries) != 8000 {
			b.Fatalf("%d entries, %v", len(entries), err)
		}
	}
}
