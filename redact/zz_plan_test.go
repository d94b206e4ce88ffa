package redact

import "testing"

func TestZZPlans(t *testing.T) {
	r := newTestRedactor(t, Options{})
	counts := map[planKind]int{}
	for _, ru := range r.rules {
		counts[ru.plan.kind]++
		var ls []string
		for _, l := range ru.plan.lits {
			if l.fold {
				ls = append(ls, "~"+l.s)
			} else {
				ls = append(ls, l.s)
			}
		}
		t.Logf("%-40s %-8s lazy=%v B=%d %q", ru.id, ru.plan.kind, ru.plan.lazy != nil, ru.plan.reach.budget, ls)
	}
	t.Log(counts)
}
