package redact

import (
	"bytes"
	"testing"
	"time"
	"regexp/syntax"
	"unicode/utf8"
)

func TestZZGeneric(t *testing.T) {
	data := realisticTranscript(realisticSampleSize)
	r := newTestRedactor(t, Options{})
	var texts []string
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		texts = append(texts, scannedTexts(r, line)...)
	}
	gi := -1
	for i := range r.rules {
		if r.rules[i].id == "generic-api-key" {
			gi = i
		}
	}
	p := &r.rules[gi].plan
	p.anchored.get()
	calls, found, inBytes, prePass := 0, 0, 0, 0
	var dur time.Duration
	for _, s := range texts {
		hit := make([]bool, len(r.rules))
		var occ []occurrence
		r.kw.scan(s, hit, &occ)
		sortOccurrences(occ)
		sl := newSlider(&p.reach, s)
		for _, o := range occ {
			if int(o.rule) != gi {
				continue
			}
			q := int(o.start)
			end := min(sl.forward(q)+windowMargin, len(s))
			inBytes += end - q
			if q > 0 {
				_, k := utf8.DecodeLastRuneInString(s[:q])
				preEnd := min(q+utf8.UTFMax*p.anchored.preRunes+windowMargin, len(s))
				if p.anchored.pre.MatchString(s[q-k : preEnd]) {
					prePass++
				}
			}
			st := time.Now()
			if p.anchoredAt(s, q, sl) != nil {
				found++
			}
			dur += time.Since(st)
			calls++
		}
	}
	t.Logf("pre %d %q calls %d found %d avg input %d time %v per call %v", prePass, p.anchored.preSrc, calls, found, inBytes/max(calls, 1), dur, dur/time.Duration(max(calls, 1)))
}

func TestZZProgSize(t *testing.T) {
	r := newTestRedactor(t, Options{})
	for i := range r.rules {
		if r.rules[i].id != "generic-api-key" {
			continue
		}
		a := r.rules[i].plan.anchored
		for _, src := range []string{`^(?s:.)(?:` + a.preSrc + `)`, `^(?s:.)(?:` + a.src + `)`} {
			re, _ := syntax.Parse(src, syntax.Perl)
			pr, _ := syntax.Compile(re.Simplify())
			t.Log(len(pr.Inst))
		}
	}
}
