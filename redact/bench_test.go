package redact

import (
	"os"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// loadFixtures reads every fixture transcript.
func loadFixtures(tb testing.TB) ([][]byte, int64) {
	tb.Helper()
	var files [][]byte
	var total int64
	for _, f := range fixtureTranscripts(tb) {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, data)
		total += int64(len(data))
	}
	return files, total
}

// BenchmarkRedactFixtures redacts the whole fixture corpus: JSONL files line
// by line, single-document Gemini sessions as documents.
func BenchmarkRedactFixtures(b *testing.B) {
	files, total := loadFixtures(b)
	r := newTestRedactor(b, Options{})
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		for _, data := range files {
			_ = r.Transcript(data)
		}
	}
}

// BenchmarkGitleaksDetector runs gitleaks' own detector, default config, on
// each whole fixture file: the baseline the engine must beat.
func BenchmarkGitleaksDetector(b *testing.B) {
	files, total := loadFixtures(b)
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		for _, data := range files {
			_ = d.DetectString(string(data))
		}
	}
}
