package githook

import (
	"os"
	"os/exec"
	"path/filepath"
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
		{PostRewrite, false, true, []string{`entire hooks git post-rewrite "$1" <"$rewritten" || true`, `"$(dirname "$0")/post-rewrite.pre-entire" "$@" <"$rewritten"`}, []string{"2>/dev/null"}},
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

// The post-rewrite shim gives git's list of rewritten commits to entire and
// to the chained hook alike, and removes its temporary copy.
func TestPostRewriteShimSharesStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{bin, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A stand-in entire that records its arguments and stdin.
	writeHookFile(t, filepath.Join(bin, "entire"), "#!/bin/sh\necho \"$*\" >\""+dir+"/entire.out\"\ncat >>\""+dir+"/entire.out\"\nexit 1\n", 0o755)
	hooks := filepath.Join(dir, "hooks")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	writeHookFile(t, filepath.Join(hooks, PostRewrite+BackupSuffix), "#!/bin/sh\necho \"$1\" >\""+dir+"/chained.out\"\ncat >>\""+dir+"/chained.out\"\n", 0o755)
	s, err := Script(PostRewrite, false, true)
	if err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(hooks, PostRewrite)
	writeHookFile(t, shim, s, 0o755)
	cmd := exec.Command(shim, "rebase")
	cmd.Stdin = strings.NewReader("old1 new1\nold2 new1\n")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp)
	execMu.RLock()
	out, err := cmd.CombinedOutput()
	execMu.RUnlock()
	if err != nil {
		t.Fatalf("shim: %v\n%s", err, out)
	}
	for name, want := range map[string]string{"entire.out": "hooks git post-rewrite rebase\nold1 new1\nold2 new1\n", "chained.out": "rebase\nold1 new1\nold2 new1\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
