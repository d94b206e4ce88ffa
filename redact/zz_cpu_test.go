package redact

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	data := realisticTranscript(realisticSampleSize)
	if os.Getenv("ZZFIX") != "" {
		data, _ = os.ReadFile("/tmp/rp_fix.jsonl")
	}
	r := newTestRedactor(t, Options{})
	r.JSONL(data)
	best := time.Hour
	for range 5 {
		st := cpuTime()
		r.JSONL(data)
		best = min(best, cpuTime()-st)
	}
	t.Logf("JSONL %d bytes: best cpu %v = %.1f MB/s", len(data), best, float64(len(data))/best.Seconds()/1e6)
}
