package redact

import (
	"bytes"
	"os"
	"sort"
	"testing"
	"time"
)

func TestZZRuleCost(t *testing.T) {
	data := realisticTranscript(realisticSampleSize)
	if os.Getenv("ZZFIX") != "" {
		data, _ = os.ReadFile("/tmp/rp_fix.jsonl")
	}
	r := newTestRedactor(t, Options{})
	var texts []string
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		texts = append(texts, scannedTexts(r, line)...)
	}
	cost := make([]time.Duration, len(r.rules))
	scanned := make([]int, len(r.rules))
	for _, s := range texts {
		hit := make([]bool, len(r.rules))
		var occ []occurrence
		r.kw.scan(s, hit, &occ)
		sortOccurrences(occ)
		by := make([][]occurrence, len(r.rules))
		for _, o := range occ {
			by[o.rule] = append(by[o.rule], o)
		}
		for i := range r.rules {
			if !hit[i] && len(r.rules[i].keywords) > 0 {
				continue
			}
			st := time.Now()
			r.runRule(&r.rules[i], s, by[i], nil)
			cost[i] += time.Since(st)
			scanned[i] += len(s)
		}
	}
	idx := make([]int, len(r.rules))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return cost[idx[a]] > cost[idx[b]] })
	for _, i := range idx[:25] {
		t.Logf("%-40s %10v %8d %s", r.rules[i].id, cost[i], scanned[i], r.rules[i].plan.kind)
	}
}
