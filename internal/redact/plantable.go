package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
)

// rulePlan is a rule's match plan (plan.go). Its literals are known when the
// rule set is built, since the keyword scanner looks for them; the rest of
// the plan is derived when the rule first runs, because a hook process
// runs few of the rules and deriving all of them cost about 10 ms and 10 MB
// of garbage at every start.
type rulePlan struct {
	lits litSet
	once sync.Once
	p    plan
}

// eagerPlan derives the whole plan of re now.
func eagerPlan(re matcher) *rulePlan {
	p := planFor(re.String(), re.NumSubexp())
	rp := &rulePlan{lits: p.lits, p: p}
	rp.once.Do(func() {})
	return rp
}

// lazyPlan is a plan whose literals are already known to be lits.
func lazyPlan(lits litSet) *rulePlan {
	return &rulePlan{lits: lits}
}

// get returns the plan of re, the expression of the rule the plan belongs
// to, deriving it on first use. Should the derived literals differ from the
// ones the scanner was built with (a table out of step with the planner),
// the rule runs on the whole text instead, which is always right.
func (rp *rulePlan) get(re matcher) *plan {
	rp.once.Do(func() {
		if p := planFor(re.String(), re.NumSubexp()); slices.Equal(p.lits, rp.lits) {
			rp.p = p
		}
	})
	return &rp.p
}

// planTable holds, for the rules of one gitleaks configuration in order,
// what building a rule set needs of their plans up front: the plan
// literals and the number of capture groups. It is generated from the
// configuration by the planner itself (TestDefaultPlanTable -update), and
// used only for the configuration text it was made from.
type planTable struct {
	configSum string // hex SHA-256 of the configuration text
	entries   []planEntry
}

// planEntry is one rule's row of a planTable.
type planEntry struct {
	id   string
	nsub int
	lits litSet
}

// forConfig returns t when it was made from text, and nil otherwise.
func (t *planTable) forConfig(text string) *planTable {
	sum := sha256.Sum256([]byte(text))
	if t == nil || hex.EncodeToString(sum[:]) != t.configSum {
		return nil
	}
	return t
}

// lookup returns the row of the i-th compiled rule when it is the rule id.
// A nil table has no rows.
func (t *planTable) lookup(i int, id string) (planEntry, bool) {
	if t == nil || i >= len(t.entries) || t.entries[i].id != id {
		return planEntry{}, false
	}
	return t.entries[i], true
}
