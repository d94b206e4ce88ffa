package redact

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
)

// Replacement is the literal that replaces every redacted secret.
const Replacement = "REDACTED"

// userPatternPrefix starts the rule ID of user patterns: "user-pattern-1" is
// Options.Patterns[0].
const userPatternPrefix = "user-pattern-"

// minOccurrenceLen is the shortest secret whose other occurrences in the same
// text are redacted too; shorter ones would hit ordinary words.
const minOccurrenceLen = 8

// Options configures a Redactor. The zero value uses the default rules only.
type Options struct {
	// Patterns are extra regular expressions (RE2 syntax, as in Go's regexp
	// package) that find secrets. If a pattern has capture groups, its first
	// non-empty group is the secret; otherwise the whole match is. Findings
	// carry the rule ID "user-pattern-N" (N counts from 1). A pattern that
	// does not compile is skipped (see Invalid).
	Patterns []string
	// Allow are regular expressions matched (unanchored) against each found
	// secret; a secret that matches any of them is left in place, whatever
	// rule found it. An expression that does not compile is skipped.
	Allow []string
}

// Finding is one detected secret: the byte span [Start, End) of the scanned
// text and the ID of the rule that found it (a gitleaks rule ID,
// "high-entropy" or "user-pattern-N"). A Finding never holds the secret
// itself, so it is safe to print or log.
type Finding struct {
	RuleID string
	Start  int
	End    int
}

// String describes the finding without revealing the secret.
func (f Finding) String() string {
	return fmt.Sprintf("%s at [%d,%d)", f.RuleID, f.Start, f.End)
}

// Redactor finds and replaces secrets. Build it with New; it is immutable and
// safe for concurrent use.
type Redactor struct {
	rules   []rule
	global  []*config.Allowlist
	allowRe map[*config.Allowlist]*allowRegexes
	kw      *scanner
	allow   []*regexp.Regexp
	// wholeText disables match plans (tests compare both modes).
	wholeText bool
	// always marks the rules without keywords, which run on every text.
	always []bool
	// scratch holds *detectScratch buffers for reuse across calls.
	scratch sync.Pool
}

// New compiles the gitleaks default rule set plus opts. A user pattern or
// allow expression that does not compile is skipped and the others are
// used (Options.Invalid says which were skipped and why): one typo in the
// settings must not turn off the patterns that are right. New returns an
// error only when the embedded gitleaks configuration cannot be loaded,
// which a test rules out.
func New(opts Options) (*Redactor, error) {
	def, err := loadDefaultRules()
	if err != nil {
		return nil, fmt.Errorf("redact: load default rules: %w", err)
	}
	r := &Redactor{global: def.global, allowRe: def.allow}
	r.rules = append(r.rules, def.rules...)
	for i, p := range opts.Patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			continue // reported by Options.Invalid
		}
		r.rules = append(r.rules, rule{id: fmt.Sprintf("%s%d", userPatternPrefix, i+1), re: re,
			plan: eagerPlan(re)})
	}
	for _, a := range opts.Allow {
		re, err := regexp.Compile(a)
		if err != nil {
			continue // reported by Options.Invalid
		}
		r.allow = append(r.allow, re)
	}
	kws := make([][]string, len(r.rules))
	lits := make([]litSet, len(r.rules))
	r.always = make([]bool, len(r.rules))
	for i, ru := range r.rules {
		kws[i] = ru.keywords
		lits[i] = ru.plan.lits
		r.always[i] = len(ru.keywords) == 0
	}
	r.kw = newScanner(kws, lits)
	return r, nil
}

// Scan returns the secrets in s, sorted by position (then rule ID). Spans of
// different rules may overlap. Every occurrence of a found secret is
// reported, including those no rule matched on their own.
func (r *Redactor) Scan(s string) []Finding {
	fs := r.detectText(s, true)
	fs = addOccurrences(s, fs, secretsOf(s, fs))
	return sortFindings(fs)
}

// Text returns s with every finding replaced by Replacement. It returns s
// itself when nothing was found.
func (r *Redactor) Text(s string) string {
	fs := r.Scan(s)
	if len(fs) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range mergeSpans(fs) {
		b.WriteString(s[last:sp[0]])
		b.WriteString(Replacement)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// detectScratch is per-call working memory of detect.
type detectScratch struct {
	hit     []bool
	occ     []occurrence
	grouped []occurrence
	counts  []int32
}

// groupByRule returns occ sorted by rule, start and end, using a counting
// sort by rule (occurrences arrive in text order, mostly sorted by start
// within a rule already). The result lives in sc.grouped.
func (sc *detectScratch) groupByRule(occ []occurrence) []occurrence {
	if len(occ) < 2 {
		return occ
	}
	nr := len(sc.hit)
	if len(sc.counts) != nr+1 {
		sc.counts = make([]int32, nr+1)
	}
	counts := sc.counts
	clear(counts)
	for _, o := range occ {
		counts[o.rule+1]++
	}
	for i := 1; i <= nr; i++ {
		counts[i] += counts[i-1]
	}
	out := slices.Grow(sc.grouped[:0], len(occ))[:len(occ)]
	for _, o := range occ {
		out[counts[o.rule]] = o
		counts[o.rule]++
	}
	sc.grouped = out
	for st := 0; st < len(out); {
		en := st + 1
		for en < len(out) && out[en].rule == out[st].rule {
			en++
		}
		sortOccurrences(out[st:en])
		st = en
	}
	return out
}

// detect runs every detector (the entropy check only when entropy is true)
// over s once and returns the findings that survive the allowlists, without
// occurrence expansion.
func (r *Redactor) detect(s string, entropy bool) []Finding {
	if s == "" {
		return nil
	}
	sc, _ := r.scratch.Get().(*detectScratch)
	if sc == nil {
		sc = &detectScratch{hit: make([]bool, len(r.rules))}
	}
	defer r.scratch.Put(sc)
	hit := sc.hit
	clear(hit)
	occ := sc.occ[:0]
	r.kw.scan(s, hit, &occ)
	sc.occ = occ
	occ = sc.groupByRule(occ)
	var fs []Finding
	lines := &lineCache{s: s}
	for i := range r.rules {
		// occ[:k] are the occurrences of rule i.
		k := 0
		for k < len(occ) && int(occ[k].rule) == i {
			k++
		}
		ro := occ[:k]
		occ = occ[k:]
		if !hit[i] && !r.always[i] {
			continue
		}
		fs = r.runRule(&r.rules[i], s, lines, ro, fs)
	}
	var spans [][2]int
	if entropy {
		spans = entropySpans(s, spans)
	}
	for _, sp := range spans {
		secret := s[sp[0]:sp[1]]
		if r.allowed(secret) {
			continue
		}
		fs = append(fs, Finding{RuleID: entropyRuleID, Start: sp[0], End: sp[1]})
	}
	return dropShadowedGeneric(dropCoveredEntropy(fs))
}

// dropCoveredEntropy removes high-entropy findings that lie inside a finding
// of a rule, so each secret is reported under the most specific rule.
func dropCoveredEntropy(fs []Finding) []Finding {
	rules := newSpanIndex(fs, func(i int) bool { return fs[i].RuleID != entropyRuleID })
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if f.RuleID == entropyRuleID && rules.covers(f.Start, f.End) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// spanIndex holds spans sorted by start, each with its end raised to the
// furthest end of the spans before it, so that whether some span holds a
// given one is one binary search: findings can number in the thousands on
// one text, and comparing every pair is quadratic.
type spanIndex [][2]int

// newSpanIndex indexes the spans of the findings fs[i] that keep(i) accepts.
func newSpanIndex(fs []Finding, keep func(i int) bool) spanIndex {
	var x spanIndex
	for i, f := range fs {
		if keep(i) {
			x = append(x, [2]int{f.Start, f.End})
		}
	}
	slices.SortFunc(x, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	for i := 1; i < len(x); i++ {
		x[i][1] = max(x[i][1], x[i-1][1])
	}
	return x
}

// covers reports whether one of the indexed spans holds [start,end).
func (x spanIndex) covers(start, end int) bool {
	// The spans starting at or before start; the furthest of their ends
	// is the last one's.
	k, _ := slices.BinarySearchFunc(x, start, func(sp [2]int, v int) int { return cmp.Compare(sp[0], v+1) })
	return k > 0 && x[k-1][1] >= end
}

// runRule appends the findings of one rule in s; occ holds the rule's plan
// literal occurrences in s.
func (r *Redactor) runRule(ru *rule, s string, lines *lineCache, occ []occurrence, fs []Finding) []Finding {
	if r.wholeText {
		return r.runRuleIn(ru, s, lines, 0, len(s), fs)
	}
	pl := ru.plan.get(ru.re)
	switch pl.kind {
	case planAnchored:
		ms, ok := pl.anchoredMatches(s, occ)
		if !ok {
			return r.runRuleIn(ru, s, lines, 0, len(s), fs)
		}
		for _, m := range ms {
			fs = r.accept(ru, s, lines, m, fs)
		}
		return fs
	case planWindows:
		spans := make([][2]int, len(occ))
		for i, o := range occ {
			spans[i] = [2]int{int(o.start), int(o.end)}
		}
		ws, ok := pl.windows(s, spans)
		if !ok {
			return r.runRuleIn(ru, s, lines, 0, len(s), fs)
		}
		for _, w := range ws {
			fs = r.runRuleIn(ru, s, lines, w[0], w[1], fs)
		}
		return fs
	}
	return r.runRuleIn(ru, s, lines, 0, len(s), fs)
}

// sortOccurrences sorts occurrences by rule, start and end.
func sortOccurrences(occ []occurrence) {
	if len(occ) > 1 && !slices.IsSortedFunc(occ, compareOccurrences) {
		slices.SortFunc(occ, compareOccurrences)
	}
}

func compareOccurrences(a, b occurrence) int {
	return cmp.Or(cmp.Compare(a.rule, b.rule), cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
}

// runRuleIn appends the findings of one rule in s[from:to]; spans and the
// allowlist line refer to the whole s.
func (r *Redactor) runRuleIn(ru *rule, s string, lines *lineCache, from, to int, fs []Finding) []Finding {
	for _, m := range ru.re.FindAllStringSubmatchIndex(s[from:to], -1) {
		for k := range m {
			if m[k] >= 0 {
				m[k] += from
			}
		}
		fs = r.accept(ru, s, lines, m, fs)
	}
	return fs
}

// accept appends the finding of one match (submatch indices m in s) unless
// the rule's secret group, entropy or an allowlist rules it out.
func (r *Redactor) accept(ru *rule, s string, lines *lineCache, m []int, fs []Finding) []Finding {
	ms, me := m[0], m[1]
	// gitleaks trims newlines around the match before using it.
	for ms < me && s[ms] == '\n' {
		ms++
	}
	for me > ms && s[me-1] == '\n' {
		me--
	}
	ss, se := ms, me
	if ngroups := len(m)/2 - 1; ngroups > 0 {
		if ru.secretGroup > 0 {
			if ru.secretGroup > ngroups || m[2*ru.secretGroup] < 0 {
				return fs
			}
			ss, se = m[2*ru.secretGroup], m[2*ru.secretGroup+1]
		} else {
			for g := 1; g <= ngroups; g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					ss, se = m[2*g], m[2*g+1]
					break
				}
			}
		}
	}
	if ss < ms {
		ss = ms
	}
	if se > me {
		se = me
	}
	if se <= ss {
		return fs
	}
	secret := s[ss:se]
	if ru.entropy > 0 && shannonEntropy(secret) <= ru.entropy {
		return fs
	}
	if r.allowed(secret) {
		return fs
	}
	if len(r.global) > 0 || len(ru.allowlists) > 0 {
		t := allowTargets{secret: secret, match: s[ms:me], ms: ms, me: me, lines: lines}
		if allowedBy(r.global, r.allowRe, t) || allowedBy(ru.allowlists, r.allowRe, t) {
			return fs
		}
	}
	if ru.lazy != nil {
		if _, extend := ru.lazy.source(); extend != nil {
			// Judged as gitleaks judges it; redacted as far as the
			// secret's class goes on (boundary.go).
			se = extendSecret(s, ss, se, extend)
		}
	}
	return append(fs, Finding{RuleID: ru.id, Start: ss, End: se})
}

// allowed reports whether a secret is exempt by the user's allow list or
// because it is (almost) only earlier redaction output.
func (r *Redactor) allowed(secret string) bool {
	if isRedactionMarker(secret) {
		return true
	}
	for _, re := range r.allow {
		if re.MatchString(secret) {
			return true
		}
	}
	return false
}

// isRedactionMarker reports whether secret is made of Replacement and at most
// a few other alphanumeric bytes, so that redacting twice changes nothing.
func isRedactionMarker(secret string) bool {
	if !strings.Contains(secret, Replacement) {
		return false
	}
	rest := strings.ReplaceAll(secret, Replacement, "")
	n := 0
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			n++
		}
	}
	return n < 4
}

// lineCache finds the line(s) of s that hold a match and keeps the verdicts
// of the allowlists that test the line on the last line found. A rule's
// matches arrive in text order, so many matches on one long line (minified
// JSON, a tool's output) cost one look for the line's bounds and one run of
// each line allowlist, not one per match, which is quadratic in the line's
// length. The zero value with s set is ready to use.
type lineCache struct {
	s          string
	start, end int
	// single reports that s[start:end] is one line: every match inside it
	// has that line.
	single   bool
	verdicts map[*config.Allowlist]bool
}

// line returns the line(s) of s that hold [ms,me).
func (c *lineCache) line(ms, me int) string {
	if !c.single || ms < c.start || me > c.end {
		c.start = strings.LastIndexByte(c.s[:ms], '\n') + 1
		c.end = len(c.s)
		if le := strings.IndexByte(c.s[me:], '\n'); le >= 0 {
			c.end = me + le
		}
		c.single = strings.IndexByte(c.s[ms:me], '\n') < 0
		clear(c.verdicts)
	}
	return c.s[c.start:c.end]
}

// allowed reports whether one of the allowlist's expressions matches the
// line(s) holding [ms,me).
func (c *lineCache) allowed(a *config.Allowlist, res map[*config.Allowlist]*allowRegexes, ms, me int) bool {
	line := c.line(ms, me)
	if v, ok := c.verdicts[a]; ok {
		return v
	}
	v := regexAllowed(a, res, line)
	if c.verdicts == nil {
		c.verdicts = map[*config.Allowlist]bool{}
	}
	c.verdicts[a] = v
	return v
}

// dropShadowedGeneric removes findings of generic rules whose span lies
// inside a finding of a specific rule, as gitleaks does when it reports.
func dropShadowedGeneric(fs []Finding) []Finding {
	if len(fs) < 2 {
		return fs
	}
	generic := make([]bool, len(fs))
	for i, f := range fs {
		generic[i] = strings.Contains(strings.ToLower(f.RuleID), "generic")
	}
	specific := newSpanIndex(fs, func(i int) bool { return !generic[i] && !isExtraRule(fs[i].RuleID) })
	out := fs[:0:0]
	for i, f := range fs {
		if generic[i] && specific.covers(f.Start, f.End) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// isExtraRule reports rule IDs of the detectors this package adds to
// gitleaks' rule set.
func isExtraRule(id string) bool {
	return id == entropyRuleID || id == uriCredentialsRuleID || id == passwordAssignmentRuleID ||
		strings.HasPrefix(id, userPatternPrefix)
}

// secretsOf returns the distinct secret texts of fs long enough for
// occurrence expansion, in a deterministic order.
func secretsOf(s string, fs []Finding) []secretRef {
	var out []secretRef
	seen := map[string]bool{}
	for _, f := range fs {
		if f.End-f.Start < minOccurrenceLen {
			continue
		}
		sec := s[f.Start:f.End]
		if !seen[sec] {
			seen[sec] = true
			out = append(out, secretRef{text: sec, rule: f.RuleID})
		}
	}
	sortSecrets(out)
	return out
}

// sortSecrets orders secrets by text, then rule.
func sortSecrets(xs []secretRef) {
	slices.SortFunc(xs, func(a, b secretRef) int {
		return cmp.Or(strings.Compare(a.text, b.text), strings.Compare(a.rule, b.rule))
	})
}

// secretRef is a found secret text and the rule that found it.
type secretRef struct {
	text string
	rule string
}

// addOccurrences appends a finding for every occurrence in s of a secret in
// secrets that the findings fs do not cover yet.
func addOccurrences(s string, fs []Finding, secrets []secretRef) []Finding {
	return newOccurrenceIndex(secrets).add(s, fs)
}

// occurrenceIndex finds the occurrences of a set of secrets (at least
// minOccurrenceLen bytes each, distinct texts) in a text in one pass: where
// the text has the first minOccurrenceLen bytes of some secrets, each of
// their lengths is one lookup of the text there. Looking for each secret in
// turn costs the text's length per secret, and comparing against each
// secret of a shared prefix (github_pat_...) the number of secrets per
// position: both are quadratic on a text of many distinct secrets. Built
// once, the index serves every text of a set (the strings of a JSON
// document) at a cost proportional to the text.
type occurrenceIndex struct {
	secrets []secretRef
	// first marks the first bytes of the secrets.
	first [256]bool
	// lens holds, by first minOccurrenceLen bytes, the distinct lengths of
	// the secrets that start so.
	lens map[string][]int
	// byText holds each secret's index in secrets.
	byText map[string]int
}

// newOccurrenceIndex indexes secrets; with none it returns nil, an index
// that adds nothing.
func newOccurrenceIndex(secrets []secretRef) *occurrenceIndex {
	if len(secrets) == 0 {
		return nil
	}
	x := &occurrenceIndex{secrets: secrets, lens: map[string][]int{}, byText: make(map[string]int, len(secrets))}
	for i, sec := range secrets {
		if _, dup := x.byText[sec.text]; dup {
			continue
		}
		x.byText[sec.text] = i
		x.first[sec.text[0]] = true
		p := sec.text[:minOccurrenceLen]
		if !slices.Contains(x.lens[p], len(sec.text)) {
			x.lens[p] = append(x.lens[p], len(sec.text))
		}
	}
	return x
}

// add appends a finding for every occurrence in s of an indexed secret that
// the findings fs do not cover yet. The occurrences of one secret are taken
// from the left without overlap.
func (x *occurrenceIndex) add(s string, fs []Finding) []Finding {
	if x == nil {
		return fs
	}
	// Merged spans are disjoint and sorted, so they are a spanIndex as they
	// are; an occurrence is covered when one merged span holds it.
	covered := spanIndex(mergeSpans(sortFindings(slices.Clone(fs))))
	// next holds, by secret, where its next occurrence may start.
	var next map[int]int
	for st := 0; st+minOccurrenceLen <= len(s); st++ {
		if !x.first[s[st]] {
			continue
		}
		for _, n := range x.lens[s[st:st+minOccurrenceLen]] {
			en := st + n
			if en > len(s) {
				continue
			}
			i, ok := x.byText[s[st:en]]
			if !ok || st < next[i] {
				continue
			}
			if next == nil {
				next = map[int]int{}
			}
			next[i] = en
			if !covered.covers(st, en) {
				fs = append(fs, Finding{RuleID: x.secrets[i].rule, Start: st, End: en})
			}
		}
	}
	return fs
}

// sortFindings sorts by start, end and rule ID and drops exact duplicates.
func sortFindings(fs []Finding) []Finding {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), strings.Compare(a.RuleID, b.RuleID))
	})
	return slices.Compact(fs)
}

// mergeSpans merges the spans of sorted findings that overlap or touch.
func mergeSpans(fs []Finding) [][2]int {
	var out [][2]int
	for _, f := range fs {
		if n := len(out); n > 0 && f.Start <= out[n-1][1] {
			if f.End > out[n-1][1] {
				out[n-1][1] = f.End
			}
			continue
		}
		out = append(out, [2]int{f.Start, f.End})
	}
	return out
}
