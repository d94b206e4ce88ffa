package cli

import (
	"context"
	"testing"
)

func TestExplainFlagParsing(t *testing.T) {
	t.Parallel()
	f, _, _ := testFactory(t.TempDir(), nil)
	var got *explainOptions
	cmd := newExplainCmd(f, func(_ context.Context, o *explainOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"-c", "abc", "-s", "--no-pager", "--search-all"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Checkpoint != "abc" || !got.Short || !got.NoPager || !got.SearchAll || got.Full {
		t.Errorf("options %+v", got)
	}
}
