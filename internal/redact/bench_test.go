package redact

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// syntheticTranscript builds a Claude Code JSONL transcript of about size
// bytes: fixture Claude lines in turn (or generated filler when the fixtures
// are absent) with a planted secret line after every every lines.
func syntheticTranscript(tb testing.TB, size, every int) []byte {
	tb.Helper()
	var filler [][]byte
	if dir := fixtureDirQuiet(); dir != "" {
		for _, f := range fixtureTranscripts(tb) {
			if !strings.Contains(f, "claude-code") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			for _, line := range bytes.SplitAfter(data, []byte("\n")) {
				if len(line) > 1 {
					filler = append(filler, line)
				}
			}
		}
	}
	if len(filler) == 0 {
		for i := range 200 {
			filler = append(filler, claudeLine(map[string]any{
				"type": "assistant", "uuid": fmt.Sprintf("1b4e28ba-2fa1-11d2-883f-%012d", i),
				"message": map[string]any{"content": []any{map[string]any{"type": "text",
					"text": strings.Repeat("The parser now keeps offsets for every token it reads. ", 40)}}},
			}))
		}
	}
	kinds := plantedSecrets(42)
	var out []byte
	for i := 0; len(out) < size; i++ {
		out = append(out, filler[i%len(filler)]...)
		if i%every == every-1 {
			p := kinds[(i/every)%len(kinds)]
			out = append(out, plantClaude(p, i)["tool-output"]...)
		}
	}
	return out
}

// fixtureDirQuiet is fixtureDir without skipping: "" when absent.
func fixtureDirQuiet() string {
	dir, err := filepath.Abs(".")
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", "fixtures", "transcripts")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// BenchmarkRedactSyntheticTranscript redacts a 20 MB Claude transcript with
// planted secrets, line by line.
func BenchmarkRedactSyntheticTranscript(b *testing.B) {
	data := syntheticTranscript(b, 20<<20, 50)
	r := newTestRedactor(b, Options{})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		_ = r.JSONL(data)
	}
}

// BenchmarkGitleaksSyntheticTranscript runs gitleaks' detector on the same
// 20 MB transcript as one file.
func BenchmarkGitleaksSyntheticTranscript(b *testing.B) {
	data := syntheticTranscript(b, 20<<20, 50)
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		_ = d.DetectString(string(data))
	}
}

// BenchmarkGitleaksPerString runs gitleaks' detector on each string the
// engine scans (without the entropy check or splicing): it separates the gain
// of scanning decoded strings from the gain of the compiled matcher.
func BenchmarkGitleaksPerString(b *testing.B) {
	files, total := loadFixtures(b)
	r := newTestRedactor(b, Options{})
	var texts []string
	for _, data := range files {
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			texts = append(texts, scannedTexts(r, line)...)
		}
	}
	d := newGitleaks(b)
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			_ = d.DetectString(s)
		}
	}
}

// BenchmarkMatcherPerString runs our matcher on the same strings.
func BenchmarkMatcherPerString(b *testing.B) {
	files, total := loadFixtures(b)
	r := newTestRedactor(b, Options{})
	var texts []string
	for _, data := range files {
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			texts = append(texts, scannedTexts(r, line)...)
		}
	}
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range texts {
			_ = r.detect(s, false)
		}
	}
}
