package agent

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/entirecli/entire/internal/gitrepo"
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
	out, err := gitrepo.Runner{}.Run(context.Background(), "rev-parse", "--show-toplevel")
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
