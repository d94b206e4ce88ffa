package claudecode_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
)

// benchLine returns a realistic transcript line of roughly 2 KB.
func benchLine(i int) string {
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 60)
	switch i % 4 {
	case 0:
		return fmt.Sprintf(`{"parentUuid":"p%d","isSidechain":false,"userType":"external","cwd":"/repo","sessionId":"s","version":"2.1.42","gitBranch":"main","type":"user","message":{"role":"user","content":"prompt %d %s"},"uuid":"u%d","timestamp":"2026-02-01T10:00:00Z"}`, i, i, pad, i)
	case 1:
		return fmt.Sprintf(`{"parentUuid":"u%d","isSidechain":false,"cwd":"/repo","sessionId":"s","type":"assistant","requestId":"req_%d","message":{"model":"claude-opus-4-6","id":"msg_%d","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Edit","input":{"file_path":"/repo/f%d.go","old_string":"%s","new_string":"b"}}],"stop_reason":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":20000,"output_tokens":50,"service_tier":"standard"}},"uuid":"a%d","timestamp":"2026-02-01T10:00:01Z"}`, i, i, i, i, i%50, pad, i)
	case 2:
		return fmt.Sprintf(`{"parentUuid":"a%d","isSidechain":false,"cwd":"/repo","sessionId":"s","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"%s"}]},"toolUseResult":{"filePath":"/repo/f.go","oldString":"%s","structuredPatch":[]},"uuid":"r%d","timestamp":"2026-02-01T10:00:02Z"}`, i, i, pad, pad[:200], i)
	default:
		return fmt.Sprintf(`{"parentUuid":"r%d","isSidechain":false,"cwd":"/repo","sessionId":"s","type":"assistant","requestId":"req_%d","message":{"model":"claude-opus-4-6","id":"msg_%d","type":"message","role":"assistant","content":[{"type":"text","text":"Done %d. %s"}],"usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":20000,"output_tokens":80}},"uuid":"t%d","timestamp":"2026-02-01T10:00:03Z"}`, i, i, i, i, pad, i)
	}
}

// BenchmarkScanTail200MB analyses the last 100 lines of a 200 MB transcript
// from the byte offset an earlier scan returned: the hook-path cost.
func BenchmarkScanTail200MB(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	size, i := 0, 0
	for ; size < 200<<20; i++ {
		n, _ := w.WriteString(benchLine(i) + "\n")
		size += n
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	a := claudecode.New()
	prev, err := a.ScanTranscript(path, agent.Position{}) // the previous hook's scan
	if err != nil {
		b.Fatal(err)
	}
	for j := 0; j < 100; j++ {
		_, _ = w.WriteString(benchLine(i+j) + "\n")
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	_ = f.Close()
	b.ReportAllocs()
	var an *agent.Analysis
	for b.Loop() {
		an, err = a.ScanTranscript(path, prev.To)
		if err != nil {
			b.Fatal(err)
		}
	}
	if an.To.Entries-prev.To.Entries != 100 || len(an.Prompts) != 25 || an.Tokens.APICallCount != 50 {
		b.Fatalf("tail scan saw %d lines, %d prompts, %d calls", an.To.Entries-prev.To.Entries, len(an.Prompts), an.Tokens.APICallCount)
	}
	b.ReportMetric(float64(size)/(1<<20), "MB-file")
}

// BenchmarkScanFull20MB measures a full scan (first hook of a resumed
// session, or a missing position): throughput in MB/s.
func BenchmarkScanFull20MB(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	var sb strings.Builder
	for i := 0; sb.Len() < 20<<20; i++ {
		sb.WriteString(benchLine(i) + "\n")
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	a := claudecode.New()
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.ScanTranscript(path, agent.Position{}); err != nil {
			b.Fatal(err)
		}
	}
}
