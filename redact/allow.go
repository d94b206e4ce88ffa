package redact

import (
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
	list  *config.Allowlist
	once  sync.Once
	match []*planMatcher
}

// addAllowlists adds to idx an allowRegexes for every allowlist in lists
// that has expressions.
func addAllowlists(idx map[*config.Allowlist]*allowRegexes, lists []*config.Allowlist) {
	for _, a := range lists {
		if _, ok := idx[a]; !ok && len(a.Regexes) > 0 {
			idx[a] = &allowRegexes{list: a}
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
		for _, re := range a.list.Regexes {
			a.match = append(a.match, newPlanMatcher(re))
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

// planMatcher answers MatchString for one expression by its match plan.
type planMatcher struct {
	re   regexpMatcher
	plan plan
	lits *scanner
}

func newPlanMatcher(re regexpMatcher) *planMatcher {
	m := &planMatcher{re: re, plan: planFor(re.String(), re.NumSubexp())}
	if m.plan.kind != planWhole {
		m.lits = newScanner([][]string{nil}, []litSet{m.plan.lits})
	}
	return m
}

// MatchString reports whether the expression matches somewhere in s.
func (m *planMatcher) MatchString(s string) bool {
	if m.plan.kind == planWhole {
		return m.re.MatchString(s)
	}
	var occ []occurrence
	m.lits.scan(s, nil, &occ)
	if len(occ) == 0 {
		return false
	}
	sortOccurrences(occ)
	switch m.plan.kind {
	case planAnchored:
		ms, ok := m.plan.anchoredMatches(s, occ)
		if !ok {
			return m.re.MatchString(s)
		}
		return len(ms) > 0
	default:
		spans := make([][2]int, len(occ))
		for i, o := range occ {
			spans[i] = [2]int{int(o.start), int(o.end)}
		}
		ws, ok := m.plan.windows(s, spans)
		if !ok {
			return m.re.MatchString(s)
		}
		for _, w := range ws {
			if m.re.MatchString(s[w[0]:w[1]]) {
				return true
			}
		}
		return false
	}
}
