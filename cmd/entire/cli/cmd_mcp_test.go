package cli

import (
	"context"
	"slices"
	"testing"
)

func TestMCPFlagParsing(t *testing.T) {
	t.Parallel()
	e := newStoreCmdEnv(t)
	var got mcpOptions
	cmd := newMCPCmd(e.f, func(_ context.Context, o *mcpOptions) error { got = *o; return nil })
	cmd.SetArgs([]string{"--agent", "gemini", "--session", "abc"})
	if err := cmd.Execute(); err != nil || got.Agent != "gemini" || got.Session != "abc" {
		t.Fatalf("%+v %v", got, err)
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
