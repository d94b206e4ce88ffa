package gitrepo

import (
	"bytes"
	stdzlib "compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	kzlib "github.com/klauspost/compress/zlib"
)

// BenchmarkDeflate compares the standard library's zlib with
// klauspost/compress's on the real transcripts of ../shared/fixtures, the
// kind of large object entire writes most.
func BenchmarkDeflate(b *testing.B) {
	files, _ := filepath.Glob("../../shared/fixtures/transcripts/claude-code/*.jsonl")
	if len(files) == 0 {
		b.Skip("fixtures not found")
	}
	var data bytes.Buffer
	for _, f := range files {
		x, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data.Write(x)
	}
	type newWriter func(*bytes.Buffer, int) (interface {
		Write([]byte) (int, error)
		Close() error
	}, error)
	impls := map[string]newWriter{
		"std": func(w *bytes.Buffer, l int) (interface {
			Write([]byte) (int, error)
			Close() error
		}, error) {
			return stdzlib.NewWriterLevel(w, l)
		},
		"klauspost": func(w *bytes.Buffer, l int) (interface {
			Write([]byte) (int, error)
			Close() error
		}, error) {
			return kzlib.NewWriterLevel(w, l)
		},
	}
	for _, level := range []int{1, 2, 6} {
		for _, name := range []string{"std", "klauspost"} {
			b.Run(fmt.Sprintf("%s/level=%d", name, level), func(b *testing.B) {
				var out bytes.Buffer
				b.SetBytes(int64(data.Len()))
				for i := 0; i < b.N; i++ {
					out.Reset()
					w, err := impls[name](&out, level)
					if err != nil {
						b.Fatal(err)
					}
					w.Write(data.Bytes())
					w.Close()
				}
				b.ReportMetric(float64(data.Len())/float64(out.Len()), "ratio")
			})
		}
	}
}
