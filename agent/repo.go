package agent

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// RepoRoot returns the root of the git work tree containing the current
// directory (`git rev-parse --show-toplevel`; the git binary is used because
// this is the one question we ask and it must honour GIT_DIR/worktrees
// exactly as git does), or the current directory when it is not inside a
// repository or git is unavailable.
func RepoRoot() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("get working directory: %w", err)
	}
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return cwd, nil
	}
	if root := strings.TrimSpace(string(out)); root != "" {
		return root, nil
	}
	return cwd, nil
}

// AddSubagentUsage adds sub to u.SubagentTokens (creating it). A nil or zero
// sub is a no-op.
func (u *TokenUsage) AddSubagentUsage(sub *TokenUsage) {
	if sub.IsZero() {
		return
	}
	if u.SubagentTokens == nil {
		u.SubagentTokens = &TokenUsage{}
	}
	u.SubagentTokens.Add(sub)
}
