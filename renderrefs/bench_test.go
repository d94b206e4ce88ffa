package renderrefs

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkExtractNoMarker measures the fast path on 1 MiB of tool output.
func BenchmarkExtractNoMarker(b *testing.B) {
	text := strings.Repeat("ordinary tool output line\n", 1<<20/26)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_, _ = Extract(text)
	}
}

// BenchmarkExtract measures 1 MiB of tool output holding one sentinel.
func BenchmarkExtract(b *testing.B) {
	half := strings.Repeat("ordinary tool output line\n", 1<<19/26)
	text := half + Marker + `{"v":1,"type":"checkpoint","id":"a3f9c2d1e4b5"}` + "\n" + half
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, refs := Extract(text); len(refs) != 1 {
			b.Fatal("no ref")
		}
	}
}

// BenchmarkWrite measures emitting one reference.
func BenchmarkWrite(b *testing.B) {
	ref := Reference{Type: "checkpoint", ID: "a3f9c2d1e4b5", Intent: IntentCreated, Preview: &Preview{Title: "Add login"}}
	for b.Loop() {
		_ = Write(io.Discard, ref)
	}
}
