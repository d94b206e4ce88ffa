package push

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
)

// DefaultTimeout bounds one network call when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// ErrTimeout is wrapped by errors of network calls that ran out of time.
var ErrTimeout = errors.New("push: timed out")

// runner runs the git binary for network calls.
type runner struct {
	repo    *gitrepo.Repo
	timeout time.Duration
	env     []string
}

// run runs git with args in the work-tree root, bounded by r.timeout and
// ctx. On timeout or cancellation the whole process group is killed, so a
// stuck ssh or credential helper dies with git. stdin is /dev/null and
// terminal prompts are off. It returns standard output also on failure
// (push --porcelain reports rejections there with a non-zero exit).
func (r *runner) run(ctx context.Context, args ...string) ([]byte, error) {
	out, err := r.git().Run(ctx, args...)
	if errors.Is(err, gitrepo.ErrTimeout) {
		return out, fmt.Errorf("%w: git %s got no answer within %s", ErrTimeout, gitrepo.Verb(args), r.timeout)
	}
	return out, err
}

// git is the runner of network calls: detached (no terminal, the process
// group killed on timeout), errors naming the verb alone (warnings name
// the command, not every ref), the C locale (porcelain output is parsed),
// and an environment pointed at r.repo explicitly (a hook's relative
// GIT_DIR would not survive), with terminal prompts disabled and r.env
// appended.
func (r *runner) git() gitrepo.Runner {
	return gitrepo.Runner{
		Dir:         r.repo.Root,
		Timeout:     r.timeout,
		Detach:      true,
		ShortErrors: true,
		CLocale:     true,
		Unset:       []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_TERMINAL_PROMPT"},
		Set:         append([]string{"GIT_DIR=" + r.repo.GitDir, "GIT_WORK_TREE=" + r.repo.Root, "GIT_TERMINAL_PROMPT=0"}, r.env...),
	}
}
