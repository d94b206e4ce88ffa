package redact

import (
	"regexp"
	"regexp/syntax"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
)

// Allowlist regexes.
//
// gitleaks' generic rule allowlists matches against a long case-insensitive
// alternation, which Go's engine runs as an NFA over the whole target. The
// engine therefore runs allowlist expressions by their match plans too:
// Allowlist.RegexAllowed reports whether any of the list's expressions
// matches the target, and so does allowRegexes.match.

// allowRegexes runs one allowlist's expressions by their plans; built on
// first use, since most allowlists never see a candidate.
type allowRegexes struct {
	list *config.Allowlist
	// srcs, when set, are the expressions' sources, which translation did
	// not compile (takeAllowlistParts); list.Regexes is then a stand-in.
	srcs  []string
	once  sync.Once
	match []*planMatcher
}

// addAllowlists adds to idx an allowRegexes for every allowlist in lists
// that has expressions; deferred holds the sources of those whose
// expressions are still to be compiled.
func addAllowlists(idx map[*config.Allowlist]*allowRegexes, lists []*config.Allowlist, deferred map[*config.Allowlist][]string) {
	for _, a := range lists {
		if _, ok := idx[a]; !ok && len(a.Regexes) > 0 {
			idx[a] = &allowRegexes{list: a, srcs: deferred[a]}
		}
	}
}

// matches reports whether one of the list's expressions matches target, as
// Allowlist.RegexAllowed does.
func (a *allowRegexes) matches(target string) bool {
	if target == "" {
		return false
	}
	a.once.Do(func() {
		if a.srcs == nil {
			for _, re := range a.list.Regexes {
				a.match = append(a.match, newPlanMatcher(re))
			}
			return
		}
		for _, src := range a.srcs {
			// gitleaks compiles them with MustCompile (the standard
			// library's engine in this build); an expression of the
			// embedded configuration that does not compile (never seen)
			// allows nothing.
			if re, err := regexp.Compile(src); err == nil {
				a.match = append(a.match, newPlanMatcher(re))
			}
		}
	})
	for _, m := range a.match {
		if m.MatchString(target) {
			return true
		}
	}
	return false
}

// regexpMatcher is the part of a compiled expression planMatcher uses.
type regexpMatcher interface {
	MatchString(s string) bool
	NumSubexp() int
	String() string
}

// planMatcher answers MatchString for one expression by match plans. A
// top-level alternation matches where one of its alternatives does, so each
// alternative gets a plan of its own: one literal scan finds the
// occurrences of all of them, and an alternative without literals runs on
// its own, which is cheap once it no longer drags the others along.
type planMatcher struct {
	re   regexpMatcher // the whole expression
	alts []planAlt
	lits *scanner // literals of all alternatives (rule index = alternative)
}

// planAlt is one alternative and its plan.
type planAlt struct {
	re   regexpMatcher
	plan plan
}

func newPlanMatcher(re regexpMatcher) *planMatcher {
	m := &planMatcher{re: re}
	if parsed, err := syntax.Parse(re.String(), syntax.Perl); err == nil && parsed.Op == syntax.OpAlternate {
		for _, sub := range parsed.Sub {
			alt, err := regexp.Compile(sub.String())
			if err != nil {
				m.alts = nil
				break
			}
			m.alts = append(m.alts, planAlt{re: alt, plan: planFor(alt.String(), alt.NumSubexp())})
		}
	}
	if m.alts == nil {
		m.alts = []planAlt{{re: re, plan: planFor(re.String(), re.NumSubexp())}}
	}
	lits := make([]litSet, len(m.alts))
	any := false
	for i, a := range m.alts {
		if a.plan.kind != planWhole {
			lits[i], any = a.plan.lits, true
		}
	}
	if any {
		m.lits = newScanner(make([][]string, len(m.alts)), lits)
	}
	return m
}

// MatchString reports whether the expression matches somewhere in s.
func (m *planMatcher) MatchString(s string) bool {
	var occ []occurrence
	if m.lits != nil {
		m.lits.scan(s, nil, &occ)
		sortOccurrences(occ)
	}
	for i := range m.alts {
		k := 0
		for k < len(occ) && int(occ[k].rule) == i {
			k++
		}
		ao := occ[:k]
		occ = occ[k:]
		if m.alts[i].matches(s, ao) {
			return true
		}
	}
	return false
}

// matches reports whether the alternative matches in s, given the
// occurrences of its plan literals.
func (a *planAlt) matches(s string, occ []occurrence) bool {
	switch a.plan.kind {
	case planAnchored:
		if len(occ) == 0 {
			return false
		}
		ms, ok := a.plan.anchoredMatches(s, occ)
		if !ok {
			return a.re.MatchString(s)
		}
		return len(ms) > 0
	case planWindows:
		if len(occ) == 0 {
			return false
		}
		spans := make([][2]int, len(occ))
		for i, o := range occ {
			spans[i] = [2]int{int(o.start), int(o.end)}
		}
		ws, ok := a.plan.windows(s, spans)
		if !ok {
			return a.re.MatchString(s)
		}
		for _, w := range ws {
			if a.re.MatchString(s[w[0]:w[1]]) {
				return true
			}
		}
		return false
	}
	return a.re.MatchString(s)
}
