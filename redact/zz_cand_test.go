package redact

import (
	"bytes"
	"sort"
	"testing"
)

func TestZZCandidates(t *testing.T) {
	data := realisticTranscript(realisticSampleSize)
	r := newTestRedactor(t, Options{})
	cnt := make([]int, len(r.rules))
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		for _, s := range scannedTexts(r, line) {
			hit := make([]bool, len(r.rules))
			var occ []occurrence
			r.kw.scan(s, hit, &occ)
			for _, o := range occ {
				if hit[o.rule] || len(r.rules[o.rule].keywords) == 0 {
					cnt[o.rule]++
				}
			}
		}
	}
	idx := make([]int, len(cnt))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return cnt[idx[a]] > cnt[idx[b]] })
	for _, i := range idx[:12] {
		a := r.rules[i].plan.anchored
		pre := ""
		if a != nil {
			pre = a.preSrc
		}
		t.Logf("%-30s %6d %s pre=%.60q", r.rules[i].id, cnt[i], r.rules[i].plan.kind, pre)
	}
}
