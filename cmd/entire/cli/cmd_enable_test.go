package cli

import (
	"context"
	"testing"
)

func TestEnableFlagParsing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want enableOptions
	}{
		{[]string{}, enableOptions{Telemetry: true}},
		{[]string{"--agent", "gemini", "-f"}, enableOptions{Agent: "gemini", AgentSet: true, Force: true, Telemetry: true, ConfigFlags: true}},
		{[]string{"--strategy", "auto-commit", "--skip-push-sessions", "--telemetry=false"},
			enableOptions{Strategy: "auto-commit", SkipPushSessions: true, ConfigFlags: true}},
		{[]string{"--local", "--local-dev", "--ignore-untracked"}, enableOptions{Local: true, LocalDev: true, Telemetry: true, ConfigFlags: true}},
	}
	for _, tt := range tests {
		f, _, _ := testFactory(t.TempDir(), nil)
		var got *enableOptions
		cmd := newEnableCmd(f, func(_ context.Context, o *enableOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		got.f = nil
		if *got != tt.want {
			t.Errorf("%v: got %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}
