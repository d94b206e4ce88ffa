package redact

import (
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	os.WriteFile("/tmp/rp_sample.jsonl", realisticTranscript(realisticSampleSize), 0o644)
}
