package push

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/entirecli/entire/gitrepo"
)

// ErrRefused is returned by Guard when a push would carry entire's branches
// where they must not go.
var ErrRefused = errors.New("push: entire branches refused")

// zeroSHA is how git's pre-push input names a ref that is deleted.
const zeroSHA = "0000000000000000000000000000000000000000"

// Guard checks the refs a push is about to send (git's pre-push input:
// "<local ref> <local sha> <remote ref> <remote sha>" lines) and refuses,
// with an error wrapping ErrRefused that names them, when they include an
// entire branch the push must not carry: any shadow branch
// (entire/<sha7>-<hash6>, temporary checkpoints are never pushed), and the
// entire/*/v1 branches unless the remote is the checkpoint remote and
// push_sessions allows it. This is what keeps `git push --all fork` from
// publishing session data. Deleting such a branch on a remote is allowed.
func Guard(repo *gitrepo.Repo, refs io.Reader, opts Options) error {
	cp := opts.CheckpointRemote
	if cp == "" {
		cp = DefaultCheckpointRemote
	}
	toCheckpointRemote := opts.PushSessions && isCheckpointRemote(repo, opts.Remote, cp)
	var refused []string
	sc := bufio.NewScanner(refs)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[1] == zeroSHA {
			continue
		}
		for _, ref := range []string{f[0], f[2]} {
			b, ok := strings.CutPrefix(ref, "refs/heads/")
			if !ok || !strings.HasPrefix(b, "entire/") {
				continue
			}
			if branchPattern.MatchString(b) && toCheckpointRemote {
				continue
			}
			refused = append(refused, b)
			break
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read pushed refs: %w", err)
	}
	if len(refused) == 0 {
		return nil
	}
	sort.Strings(refused)
	why := fmt.Sprintf("only the checkpoint remote %q receives session data", cp)
	if !opts.PushSessions {
		why = "strategy_options.push_sessions is false"
	}
	return fmt.Errorf("%w: not pushing %s to %s (%s; shadow branches are never pushed). Push your branches by name instead of --all/--mirror, or delete these refs from the push",
		ErrRefused, strings.Join(refused, ", "), opts.Remote, why)
}
