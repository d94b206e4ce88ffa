package redact

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/testtier"
)

// planFindings runs one rule the way detect does (plan, literal scan) and
// the whole-text way, and returns both finding lists.
func planFindings(r *Redactor, i int, s string) (planned, whole []Finding) {
	hit := make([]bool, len(r.rules))
	var occ []occurrence
	r.kw.scan(s, hit, &occ)
	sortOccurrences(occ)
	var ro []occurrence
	for _, o := range occ {
		if int(o.rule) == i {
			ro = append(ro, o)
		}
	}
	ru := &r.rules[i]
	return r.runRule(ru, s, &lineCache{s: s}, ro, nil), r.runRuleIn(ru, s, &lineCache{s: s}, 0, len(s), nil)
}

// adversarialTexts builds short texts around every plan literal of every
// rule: at text edges, after word bytes, with the non-ASCII case variants
// (Kelvin sign, long s) the expressions' case folding admits, next to
// invalid and multi-byte UTF-8, repeated, and followed by token-like tails
// and assignment shapes.
func adversarialTexts(r *Redactor) []string {
	tails := []string{
		token(60, alnum, 40), token(61, lowerHx, 64), "_" + token(62, urlsafe, 30), "." + token(63, alnum, 24),
		" = \"" + token(64, alnum, 32) + "\"", ": " + token(65, b64, 44) + "==", "-" + token(66, alnum, 6) + "-" + token(67, alnum, 11),
		strings.ToUpper(token(68, upper32, 16)),
	}
	// Crowded literals make anchored plans fall back to whole-text runs.
	out := []string{
		strings.Repeat("apikey=", 300), strings.Repeat("token: "+token(69, alnum, 12)+" ", 100),
		strings.Repeat("s.", 300) + token(59, alnum, 24), strings.Repeat("SK", 200) + token(58, lowerHx, 32),
	}
	for ri, ru := range r.rules {
		for li, l := range ru.plan.lits {
			if li >= 6 {
				break
			}
			lit := l.s
			if l.fold && (ri+li)%2 == 0 {
				lit = strings.ToUpper(lit)
			}
			variant := strings.NewReplacer("k", "\u212a", "s", "\u017f").Replace(lit)
			tail := tails[(ri+li)%len(tails)]
			out = append(out,
				lit+tail,
				"x"+lit+tail+"\n",
				"the_"+lit+tail+" and "+lit+tail,
				"\xff"+lit+tail+"\xe2\x82",
				"é"+lit+tail+"é",
				variant+tail,
				strings.Repeat(lit, 3)+tail+strings.Repeat(lit, 2),
				"prefix value "+lit+"="+tail+"; "+lit+": '"+tail+"'",
			)
		}
	}
	return out
}

// corpusTexts returns the texts the equivalence tests compare on: planted
// secrets, the realistic sample's strings and, when present, the fixtures'.
func corpusTexts(tb testing.TB, r *Redactor) []string {
	var texts []string
	for _, p := range plantedSecrets(5) {
		texts = append(texts, p.text, "x"+p.text+"\n"+p.text+` "`)
	}
	sample := realisticTranscript(1 << 20)
	for _, line := range bytes.SplitAfter(sample, []byte("\n")) {
		texts = append(texts, scannedTexts(r, line)...)
	}
	if fixtureDirQuiet() != "" {
		files, _ := loadFixtures(tb)
		// Every fourth recorded transcript in go test ./..., all of them
		// in the torture tier.
		step := testtier.Count(4, 1)
		for k, data := range files {
			if k%step != 0 {
				continue
			}
			for _, line := range bytes.SplitAfter(data, []byte("\n")) {
				texts = append(texts, scannedTexts(r, line)...)
			}
		}
	}
	return texts
}

// TestPlansMatchWholeText checks, rule by rule, that running each rule by
// its plan finds exactly what running its expression over the whole text
// finds: every rule on the adversarial texts, and the rules whose keywords
// occur (as detect runs them) on the corpus.
func TestPlansMatchWholeText(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{Patterns: []string{`(?i)\btok_[a-z0-9]{12}\b`, `secret-[0-9]+`}})
	kinds := map[planKind]int{}
	for _, ru := range r.rules {
		kinds[ru.plan.get(ru.re).kind]++
	}
	t.Logf("plans: %v", kinds)
	compare := func(name string, i int, s string) {
		t.Helper()
		a, b := planFindings(r, i, s)
		if !slices.Equal(a, b) {
			t.Fatalf("%s: rule %s (%s plan) on %q:\nplan  %v\nwhole %v", name, r.rules[i].id, r.rules[i].plan.get(r.rules[i].re).kind, s, a, b)
		}
	}
	// The quick tier pairs each adversarial text with every third rule,
	// shifting by text, so every rule still meets a third of the texts.
	share := testtier.Count(3, 1)
	adv := adversarialTexts(r)
	for k, s := range adv {
		for i := range r.rules {
			if (i+k)%share == 0 {
				compare(fmt.Sprintf("adversarial %d", k), i, s)
			}
		}
	}
	corpus := corpusTexts(t, r)
	for k, s := range corpus {
		hit := make([]bool, len(r.rules))
		r.kw.scan(s, hit, nil)
		for i := range r.rules {
			if hit[i] || len(r.rules[i].keywords) == 0 {
				compare(fmt.Sprintf("corpus %d", k), i, s)
			}
		}
	}
	t.Logf("%d adversarial and %d corpus texts compared", len(adv), len(corpus))
}

// FuzzPlansMatchWholeText compares plan and whole-text runs of every rule
// on arbitrary text.
func FuzzPlansMatchWholeText(f *testing.F) {
	for _, p := range plantedSecrets(13) {
		f.Add(p.text)
	}
	f.Add("key=" + token(70, alnum, 30) + " SK" + token(71, lowerHx, 32) + " s." + token(72, alnum, 24))
	f.Add("\u212aey: " + token(73, alnum, 20) + "\xff api_\u017fecret=" + token(74, alnum, 12))
	r, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := range r.rules {
			a, b := planFindings(r, i, s)
			if !slices.Equal(a, b) {
				t.Fatalf("rule %s (%s plan) on %q:\nplan  %v\nwhole %v", r.rules[i].id, r.rules[i].plan.get(r.rules[i].re).kind, s, a, b)
			}
		}
	})
}

func TestAnalyzeLiterals(t *testing.T) {
	t.Parallel()
	show := func(set litSet) []string {
		var out []string
		for _, l := range set {
			if l.fold {
				out = append(out, "~"+l.s)
			} else {
				out = append(out, l.s)
			}
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		re             string
		prefix, factor []string
	}{
		{`SK[0-9a-fA-F]{32}`, []string{"SK"}, []string{"SK"}},
		{`\b((?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z2-7]{16})\b`, []string{"A3T", "AKIA", "ASIA"}, []string{"A3T", "AKIA", "ASIA"}},
		{`(?i)key`, []string{"~key", "~\u212aey"}, []string{"~key", "~\u212aey"}},
		{`(?i)\b(NRAK-[a-z0-9]{27})`, []string{"~nrak-", "~nra\u212a-"}, []string{"~nrak-", "~nra\u212a-"}},
		{`[a-z]+_live_[a-z]+`, nil, []string{"_live_"}},
		{`x?abc`, []string{"abc", "xabc"}, []string{"abc", "xabc"}},
		{`(?:foo|ba.)`, []string{"ba", "foo"}, []string{"ba", "foo"}},
		{`(?:foo|.)`, nil, nil},
		{`[Aa]pi`, []string{"~api"}, []string{"~api"}},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		in := analyze(re)
		prefix := in.prefix
		if score(prefix) == 0 {
			prefix = nil
		}
		if got := show(prefix); !slices.Equal(got, tt.prefix) {
			t.Errorf("%s: prefix %q, want %q", tt.re, got, tt.prefix)
		}
		factor := in.factor
		if score(factor) == 0 {
			factor = nil
		}
		if got := show(factor); !slices.Equal(got, tt.factor) {
			t.Errorf("%s: factor %q, want %q", tt.re, got, tt.factor)
		}
	}
}

func TestRelaxMatchesPrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct{ re, match string }{
		{`key[ \t\w.-]{0,20}(?:=|:=)([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,})\b`, "key :=" + token(80, alnum, 100)},
		{`\b(hvs\.[\w-]{90,120}|s\.[a-z0-9]{24})`, "hvs." + token(81, urlsafe, 100)},
		{`ab+c*d{3,}`, "abbbbbcccdddddd"},
		{`(?i)longliteral` + strings.Repeat("x", 80), "LONGLITERAL" + strings.Repeat("X", 80)},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^(?:` + tt.re + `)`).MatchString(tt.match) {
			t.Fatalf("%s does not match %q", tt.re, tt.match)
		}
		pre := relax(re, maxPreRunes)
		if n := maxRunes(pre); n < 0 || n > maxPreRunes {
			t.Errorf("%s: relaxed to %s, %d runes", tt.re, pre, n)
		}
		if !regexp.MustCompile(`^(?:` + pre.String() + `)`).MatchString(tt.match) {
			t.Errorf("%s: relaxed %s does not match a prefix of %q", tt.re, pre, tt.match)
		}
	}
}

func TestReachBoundsMatches(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@]{1,100}:([^\s/?#@]{1,200})@`)
	p := planFor(re.String(), re.NumSubexp())
	if p.kind != planWindows {
		t.Fatalf("plan %s, want windows", p.kind)
	}
	s := "see https://user:" + token(82, alnum, 30) + "@example.com/x and more text"
	m := re.FindStringIndex(s)
	lit := strings.Index(s, "://")
	if lo := newSlider(&p.before, s).backward(lit); lo > m[0] {
		t.Errorf("backward bound %d past match start %d", lo, m[0])
	}
	if hi := newSlider(&p.reach, s).forward(lit + 3); hi < m[1] {
		t.Errorf("forward bound %d before match end %d", hi, m[1])
	}
}

// TestAllowlistPlansMatch checks that running allowlist expressions by
// their plans answers MatchString as the expressions themselves do.
func TestAllowlistPlansMatch(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	var ms []*planMatcher
	for _, ar := range r.allowRe {
		for _, re := range ar.list.Regexes {
			ms = append(ms, newPlanMatcher(re))
		}
	}
	texts := adversarialTexts(r)
	for _, m := range ms {
		if m.lits == nil {
			continue
		}
		for _, l := range m.lits.lits() {
			texts = append(texts, l.s, strings.ToUpper(l.s)+"_"+token(90, alnum, 20), "x "+l.s+"-jar:1", "import { a, b } from '"+l.s+"'")
		}
	}
	corpus := corpusTexts(t, r)
	for i := 0; i < len(corpus); i += 7 {
		texts = append(texts, corpus[i])
	}
	for _, s := range texts {
		for _, m := range ms {
			if got, want := m.MatchString(s), m.re.MatchString(s); got != want {
				t.Fatalf("%s (%d alternatives) on %q: plan %v, whole %v", m.re, len(m.alts), s, got, want)
			}
		}
	}
	t.Logf("%d allowlist expressions on %d texts", len(ms), len(texts))
}

// lits returns the literals the scanner looks for (tests only).
func (k *scanner) lits() []lit {
	var out []lit
	for _, p := range k.pats {
		if !p.keyword {
			out = append(out, lit{s: cmp.Or(p.exact, p.text)})
		}
	}
	return out
}

func TestMayExceedEntropyIsNecessary(t *testing.T) {
	t.Parallel()
	alphabets := []string{lowerHx, alnum, b64, upper32, "ab", alnum[:22], alnum[:23]}
	for i := range 3000 {
		tok := token(uint64(1000+i), alphabets[i%len(alphabets)], 10+i%60)
		if shannonEntropy(tok) > entropyThreshold && !mayExceedEntropy(tok) {
			t.Fatalf("%q has entropy %.3f but mayExceedEntropy is false", tok, shannonEntropy(tok))
		}
	}
}
