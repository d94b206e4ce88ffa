package githook

import (
	"strings"
	"testing"
)

func TestScriptContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		hook     string
		localDev bool
		chain    bool
		contains []string
		absent   []string
	}{
		{PrepareCommitMsg, false, false,
			[]string{"#!/bin/sh\n" + Marker + "\n", `entire hooks git prepare-commit-msg "$1" "$2" 2>/dev/null || true`, "command -v entire"},
			[]string{"Chain"}},
		{CommitMsg, false, true,
			[]string{`entire hooks git commit-msg "$1" || true`, "# Chain: run pre-existing hook",
				`exec "$(dirname "$0")/commit-msg.pre-entire" "$@"`}, nil},
		{PostCommit, true, false,
			[]string{`go run ./cmd/entire/main.go hooks git post-commit 2>/dev/null || true`, "command -v go"},
			[]string{"command -v entire"}},
		{PrePush, false, false, []string{`entire hooks git pre-push "$1" "$2" <"$refs"`, `ENTIRE_PRE_PUSH_VERDICT="$verdict"`}, []string{"Chain", "-eq 3 ]; then cleanup"}},
		{PrePush, false, true, []string{`entire hooks git pre-push "$1" "$2" <"$refs"`, `"$(dirname "$0")/pre-push.pre-entire" "$@" <"$refs"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.hook, func(t *testing.T) {
			t.Parallel()
			s, err := Script(tt.hook, tt.localDev, tt.chain)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.contains {
				if !strings.Contains(s, want) {
					t.Errorf("script lacks %q:\n%s", want, s)
				}
			}
			for _, bad := range tt.absent {
				if strings.Contains(s, bad) {
					t.Errorf("script has %q:\n%s", bad, s)
				}
			}
		})
	}
	if _, err := Script("pre-commit", false, false); err == nil {
		t.Fatal("unknown hook: want error")
	}
}
