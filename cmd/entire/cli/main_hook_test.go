package cli

import "testing"

func TestIsHookCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"hooks", "claude-code", "stop"}, true},
		{[]string{"hooks", "git", "post-commit"}, true},
		{[]string{"hooks", "finish-turn"}, false},
		{[]string{"hooks"}, false},
		{[]string{"status"}, false},
		{nil, false},
	} {
		if got := isHookCall(tc.args); got != tc.want {
			t.Errorf("isHookCall(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
