package redact

import (
	"encoding/json"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// ruleSample is a text that gitleaks' own detector, with its default
// rules as gitleaks ships them, reports under rule: the secret, and the
// text around it that the rule needs (a keyword and an assignment).
type ruleSample struct {
	rule, text, secret string
}

// sampleRule writes a text from a rule's expression: the fewest repeats
// outside the capture groups, and inside them random characters of each
// class, so that the secret has the entropy a real one has.
type sampleRule struct {
	rng    *rand.Rand
	b      strings.Builder
	groups map[int]string
}

func (g *sampleRule) gen(n *syntax.Regexp, inGroup bool) {
	switch n.Op {
	case syntax.OpLiteral:
		for _, r := range n.Rune {
			g.b.WriteRune(r)
		}
	case syntax.OpCharClass:
		g.b.WriteRune(g.pick(n.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		g.b.WriteRune(g.pick([]rune{'a', 'z', '0', '9'}))
	case syntax.OpCapture:
		start := g.b.Len()
		for _, s := range n.Sub {
			g.gen(s, true)
		}
		g.groups[n.Cap] = g.b.String()[start:]
	case syntax.OpConcat:
		for _, s := range n.Sub {
			g.gen(s, inGroup)
		}
	case syntax.OpAlternate:
		var subs []*syntax.Regexp
		for _, sub := range n.Sub {
			if sub.Op != syntax.OpEndText && sub.Op != syntax.OpEndLine && sub.Op != syntax.OpBeginText && sub.Op != syntax.OpBeginLine {
				subs = append(subs, sub)
			}
		}
		if len(subs) < len(n.Sub) && n.MaxCap() == 0 {
			return // a boundary group: the text ends, or a context follows
		}
		g.gen(subs[g.rng.IntN(len(subs))], inGroup)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 1
		switch n.Op {
		case syntax.OpStar:
			hi = 24
		case syntax.OpPlus:
			lo, hi = 1, 24
		case syntax.OpRepeat:
			lo, hi = n.Min, n.Max
			if hi < 0 {
				hi = lo + 24
			}
		}
		count := lo
		if inGroup && hi > lo {
			count = lo + g.rng.IntN(min(hi-lo, 24)+1)
		}
		for range count {
			g.gen(n.Sub[0], inGroup)
		}
	}
	// Anchors, word boundaries and empty matches write nothing.
}

// pick returns a random printable ASCII character of the ranges, else
// their first one.
func (g *sampleRule) pick(ranges []rune) rune {
	var in []rune
	for c := rune('!'); c <= '~'; c++ {
		for i := 0; i+1 < len(ranges); i += 2 {
			if c >= ranges[i] && c <= ranges[i+1] {
				in = append(in, c)
				break
			}
		}
	}
	if len(in) == 0 {
		if len(ranges) > 0 && ranges[0] <= unicode.MaxRune {
			return ranges[0]
		}
		return 'x'
	}
	return in[g.rng.IntN(len(in))]
}

// gitleaksRuleSamples returns one sample for every rule of gitleaks'
// default configuration for which the generator finds, within a few
// tries, a text that gitleaks itself reports (before whitespace).
func gitleaksRuleSamples(t *testing.T) []ruleSample {
	t.Helper()
	vc, err := decodeGitleaksConfig(defaultConfigTOML())
	if err != nil {
		t.Fatal(err)
	}
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	var out []ruleSample
	for i, r := range vc.Rules {
		if r.Regex == "" || r.Path != "" || r.SkipReport {
			continue // path-only, path-restricted or composite parts
		}
		tree, err := syntax.Parse(r.Regex, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		tree = tree.Simplify()
		for try := range 60 {
			g := &sampleRule{rng: rand.New(rand.NewPCG(uint64(i), uint64(try))), groups: map[int]string{}}
			g.b.WriteString("x ")
			g.gen(tree, false)
			text := g.b.String()
			found := ""
			for _, f := range d.DetectString(text + " \n") {
				if f.RuleID == r.ID {
					found = f.Secret
				}
			}
			if found != "" && strings.TrimSpace(found) == found && len(found) >= 8 {
				out = append(out, ruleSample{rule: r.ID, text: text, secret: found})
				break
			}
		}
	}
	return out
}

// A secret is redacted whatever character follows it, wherever it is: in
// prose, in a file name, in a path, in a JSON transcript line and in a
// metadata string; and the scans that guard pushes (Scan, ScanJSON) find
// it. gitleaks' rules end with a boundary group that only accepts a
// quote, whitespace, ';' or the end (issue 30: a Stripe key before '.',
// Databricks, DigitalOcean and Pulumi keys before ')' reached the remote).
func TestEveryRuleRedactedBeforeAnyCharacter(t *testing.T) {
	t.Parallel()
	samples := gitleaksRuleSamples(t)
	if len(samples) < 180 {
		t.Fatalf("the generator wrote samples gitleaks reports for only %d rules", len(samples))
	}
	r := newTestRedactor(t, Options{})
	failed := map[string]bool{}
	for _, s := range samples {
		var texts []string
		for _, c := range []string{".", ")", "/", ",", ":", "]", "}", ">"} {
			texts = append(texts, s.text+c, s.text+c+"tail more words")
		}
		// In a file name and in a path (files_touched, a Write's
		// file_path).
		texts = append(texts, "conf/"+strings.TrimPrefix(s.text, "x ")+".cfg", "/home/dev/"+strings.TrimPrefix(s.text, "x ")+"/notes.md")
		for _, text := range texts {
			if out := r.Text(text); strings.Contains(out, s.secret) {
				failed[s.rule] = true
				t.Errorf("%s: Text kept the secret of %q", s.rule, text)
				continue
			}
			if !covered(r.Scan(text), text, s.secret) {
				failed[s.rule] = true
				t.Errorf("%s: Scan did not find the secret in %q", s.rule, text)
			}
			line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"content": text}, "files_touched": []string{text}})
			escaped, _ := json.Marshal(s.secret) // as the secret stands in the line
			esc := string(escaped[1 : len(escaped)-1])
			if out := r.JSONLine(line); strings.Contains(string(out), esc) {
				failed[s.rule] = true
				t.Errorf("%s: JSONLine kept the secret of %q", s.rule, text)
			}
			if !covered(r.ScanJSON(line), string(line), esc) {
				failed[s.rule] = true
				t.Errorf("%s: ScanJSON did not find the secret in %s", s.rule, line)
			}
		}
	}
	t.Logf("%d rules sampled, %d failed", len(samples), len(failed))
}

// coveredBySpecific reports whether a generic-api-key finding k is
// covered by another rule's finding of got: gitleaks drops a generic
// finding that a specific rule's overlaps, and which of the two overlapping
// findings it keeps first is not fixed from run to run (the secret is
// reported either way).
func coveredBySpecific(got map[ruleSecret]bool, k ruleSecret) bool {
	if k.rule != "generic-api-key" {
		return false
	}
	for g := range got {
		if g.rule != "generic-api-key" && strings.Contains(g.secret, k.secret) {
			return true
		}
	}
	return false
}

// covered reports whether a finding covers the secret where it occurs in
// text.
func covered(fs []Finding, text, secret string) bool {
	at := strings.Index(text, secret)
	for _, f := range fs {
		if f.Start <= at && f.End >= at+len(secret) {
			return true
		}
	}
	return false
}

// The relaxed rules report whatever gitleaks' reports, the same secret:
// the boundary only adds places where a secret may end.
func TestRelaxedBoundaryAgreesWithGitleaks(t *testing.T) {
	t.Parallel()
	orig, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	relaxed := newGitleaks(t)
	for _, s := range gitleaksRuleSamples(t) {
		for _, text := range []string{s.text + " \n", s.text + "\"", s.text + `\n`, s.text + ";"} {
			want := gitleaksFindings(t, orig, []byte(text))
			got := gitleaksFindings(t, relaxed, []byte(text))
			for k := range want {
				if !got[k] && !coveredBySpecific(got, k) {
					t.Errorf("%s: the relaxed rules lost %s (%d bytes) in %q", s.rule, k.rule, len(k.secret), text)
				}
			}
		}
	}
}
