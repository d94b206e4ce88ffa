package explain

import (
	"bytes"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint"
)

func TestCombineAttributions(t *testing.T) {
	t.Parallel()
	if got := CombineAttributions([]*checkpoint.Attribution{nil, nil}); got != nil {
		t.Errorf("combination of none = %+v", got)
	}
	early, late := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	// 20% of 5 lines and 100% of 3 lines: 4 of 8 (50%), not the mean 60%.
	got := CombineAttributions([]*checkpoint.Attribution{
		{CalculatedAt: late, AgentLines: 1, HumanAdded: 4, TotalCommitted: 5, AgentPercentage: 20},
		nil,
		{CalculatedAt: early, AgentLines: 3, HumanModified: 1, HumanRemoved: 2, TotalCommitted: 3, AgentPercentage: 100},
	})
	want := checkpoint.Attribution{CalculatedAt: late, AgentLines: 4, HumanAdded: 4, HumanModified: 1, HumanRemoved: 2, TotalCommitted: 8, AgentPercentage: 50}
	if got == nil || *got != want {
		t.Fatalf("CombineAttributions = %+v, want %+v", got, want)
	}
	var b bytes.Buffer
	if err := RenderCombinedAttribution(&b, 2, got); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); s != "Attribution (2 checkpoints combined): 50.0% agent (4 of 8 committed lines; human +4 ~1 -2)\n" {
		t.Errorf("rendered %q", s)
	}
	// 13 of 18 and 0 of 0: 72.2%.
	got = CombineAttributions([]*checkpoint.Attribution{{AgentLines: 13, HumanAdded: 5, TotalCommitted: 18}, {}})
	b.Reset()
	_ = RenderCombinedAttribution(&b, 2, got)
	if s := b.String(); s != "Attribution (2 checkpoints combined): 72.2% agent (13 of 18 committed lines; human +5 ~0 -0)\n" {
		t.Errorf("rendered %q", s)
	}
}
