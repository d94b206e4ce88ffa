package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/hooks/githook"
	"github.com/entirecli/entire/internal/logging"
	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/strategy"
)

// RunGitHook handles `entire hooks git <hook> [args]`, hook one of the
// shims githook installs (githook.Names), and returns the exit
// status for git. Only a deliberate pre-push refusal (see refusePush)
// blocks anything; every internal failure is logged and exits 0, and the
// shims let the user's git go on whatever the status, so entire never
// blocks the user's git by failing. A panic is recovered and exits 0 too. Git hooks run whether or not entire is enabled: they simply
// find no sessions when it is unused.
func RunGitHook(ctx context.Context, env Env, hook string, args []string) (code int) {
	var perr error
	defer func() {
		if perr != nil {
			env.warnf("[entire] %s: %v\n", hook, perr)
			code = 0
		}
	}()
	defer panics.Recover(&perr)
	start := env.Now()
	repo, err := env.OpenRepo()
	if err != nil {
		return 0
	}
	senv, log, err := open(env, repo, "hooks", loadSettings(repo.Root))
	if err != nil {
		env.warnf("[entire] %v\n", err)
		return 0
	}
	defer log.Close()
	// Before anything else (a pre-push before it pushes): a condensation
	// that a killed post-commit left. A post-commit condenses its own
	// commit first, then looks for others.
	condensingLater := false
	switch hook {
	case githook.PostCommit:
		defer func() {
			if !condensingLater { // else the process started does it
				strategy.CompletePending(ctx, senv)
			}
		}()
		senv.CondenseLater = func() error {
			pid, err := startDetached(senv, "condense", struct{}{})
			if err == nil {
				condensingLater = true
				log.Info("post-commit: condensing in the background", "pid", pid)
			}
			return err
		}
	case githook.PrePush:
		// What it pushes includes a condensation still being written in
		// the background (see strategy.Env.CondenseLater).
		strategy.CompletePendingWait(ctx, senv, pendingWait)
	default:
		strategy.CompletePending(ctx, senv)
	}
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	st := strategy.New(senv)
	gh, ok := st.(strategy.GitHooks)
	switch {
	case hook == githook.PrePush:
		var refs []byte
		if env.Stdin != nil {
			refs, _ = io.ReadAll(io.LimitReader(env.Stdin, maxPushedRefs))
		}
		if gerr := guardPush(ctx, senv, arg(0), refs); gerr != nil {
			log.Warn("push refused", "error", gerr)
			env.warnf("[entire] %v\n", gerr)
			return refusePush(env, log)
		}
		named := namedEntireBranches(refs)
		if refs == nil {
			refs = []byte{} // git gave none: still the hook's check
		}
		err = prePush(ctx, senv, arg(0), named, refs)
		switch {
		case errors.Is(err, push.ErrDeferred):
			// The user's branch goes first; the session logs follow once
			// it landed.
			env.warnf("[entire] Session logs are pushed to %s once this push has landed\n", destination(ctx, senv, arg(0)).Name())
			err = pushAfter(senv, arg(0), push.UserBranches(refs))
		case errors.Is(err, push.ErrBackground):
			// More than this push should wait for: the rest goes on
			// after it returns.
			err = pushAfter(senv, arg(0), nil)
		}
		if errors.Is(err, push.ErrSecretsFound) {
			// The user's own push goes on, without the session data; a
			// push that names an entire branch itself is refused.
			log.Warn("session data not pushed", "error", err)
			if own := append(named, namedCheckpointRefs(refs)...); len(own) > 0 {
				env.warnf("[entire] push of %s refused: it holds secrets by the current redaction rules; run `entire doctor --secrets`\n", strings.Join(own, ", "))
				return refusePush(env, log)
			}
			err = nil
		}
	case hook == githook.PostRewrite:
		var rewrites []strategy.Rewrite
		if env.Stdin != nil {
			rewrites = strategy.ParseRewrites(io.LimitReader(env.Stdin, maxPushedRefs))
		}
		if ok {
			err = gh.PostRewrite(ctx, arg(0), rewrites)
		} else {
			_, err = strategy.PostRewrite(ctx, senv, arg(0), rewrites)
		}
	case !ok:
		// auto-commit links its own commits; nothing to do.
	case hook == githook.PrepareCommitMsg:
		err = gh.PrepareCommitMsg(ctx, arg(0), arg(1))
	case hook == githook.CommitMsg:
		err = gh.CommitMsg(ctx, arg(0))
	case hook == githook.PostCommit:
		if err = gh.PostCommit(ctx); err == nil {
			defer func() {
				if !condensingLater { // else the condensing process does it
					indexLater(senv)
				}
			}()
		}
	default:
		err = fmt.Errorf("unknown git hook %q", hook)
	}
	log.Info("git hook completed", "hook", hook, "hook_type", "git", "duration_ms", since(env, start), "success", err == nil)
	if err != nil {
		log.Warn("git hook failed", "hook", hook, "error", err)
		env.warnf("[entire] %s: %v\n", hook, err)
	}
	return 0
}

// refusePush makes the pre-push shim refuse the push: it writes the
// refusal token to the verdict file the shim created and named in
// githook.VerdictEnv, and returns the refusal status. The shim needs both,
// so that a crash never blocks a push. A shim older than the verdict file
// reads the status alone.
func refusePush(env Env, log *logging.Logger) int {
	path := ""
	if env.Getenv != nil {
		path = env.Getenv(githook.VerdictEnv)
	}
	if path != "" {
		// O_TRUNC without O_CREATE: only the shim's own file is written.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err == nil {
			_, err = f.WriteString(githook.PushRefusal)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			log.Warn("write push verdict", "error", err)
		}
	}
	return githook.PushRefusedStatus
}

// guardPush refuses a push that would carry entire's branches to a remote
// other than the checkpoint remote (git push --all to a fork), or any shadow
// branch. refs is git's list of pushed refs.
func guardPush(ctx context.Context, senv *strategy.Env, remote string, refs []byte) error {
	s := senv.Settings
	err := push.Guard(ctx, senv.Repo, bytes.NewReader(refs), push.Options{Remote: remote, Destination: destination(ctx, senv, remote), PushSessions: s.PushSessions()})
	if errors.Is(err, push.ErrRefused) {
		return err
	}
	return nil
}

// syncPushLimit bounds how long the pre-push hook's push of session data
// holds the user's push; the rest goes on in the background (push-after).
const syncPushLimit = 1500 * time.Millisecond

// destination is where the checkpoint data of a push to remote goes, as
// the settings say (push.Resolve).
func destination(ctx context.Context, senv *strategy.Env, remote string) push.Destination {
	return push.Resolve(ctx, senv.Repo, senv.Settings, push.ResolveOptions{Pushed: remote, Getenv: senv.Getenv})
}

// maxPushedRefs bounds git's list of pushed refs read by the pre-push hook
// (and that of rewritten commits read by post-rewrite).
const maxPushedRefs = 16 << 20

// namedEntireBranches returns the entire branches the pushed refs (git's
// pre-push input) name as their destination.
func namedEntireBranches(refs []byte) []string {
	var out []string
	for _, line := range strings.Split(string(refs), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue
		}
		if b, ok := strings.CutPrefix(f[2], "refs/heads/"); ok && strings.HasPrefix(b, "entire/") {
			out = append(out, b)
		}
	}
	return out
}

// namedCheckpointRefs returns the checkpoint refs (SPEC 10.3) the pushed
// refs name as their destination.
func namedCheckpointRefs(refs []byte) []string {
	var out []string
	for _, line := range strings.Split(string(refs), "\n") {
		if f := strings.Fields(line); len(f) == 4 && strings.HasPrefix(f[2], checkpoint.RefPrefix) {
			out = append(out, f[2])
		}
	}
	return out
}

// backgroundPush is prePush as the background push does it: no limit but
// push.BackgroundBudget, large branches in batches.
func backgroundPush(ctx context.Context, senv *strategy.Env, remote string) error {
	return runPrePush(ctx, senv, remote, nil, nil, true)
}

// prePush pushes entire's branches (entire/checkpoints/v1 and the other
// entire/*/v1 branches) along with the user's push, only to the checkpoint
// remote and only when push_sessions allows, each network call bounded.
// Failures are warnings: the user's push goes on. It never reads stdin (a
// chained pre-existing hook gets git's ref list).
func prePush(ctx context.Context, senv *strategy.Env, remote string, explicit []string, refs []byte) error {
	return runPrePush(ctx, senv, remote, explicit, refs, false)
}

func runPrePush(ctx context.Context, senv *strategy.Env, remote string, explicit []string, refs []byte, background bool) error {
	s := senv.Settings
	opts := push.Options{
		Remote:       remote,
		Destination:  destination(ctx, senv, remote),
		PushSessions: s.PushSessions(),
		Timeout:      s.PushTimeout(),
		Log:          senv.Stderr,
		Now:          senv.Now,
		Explicit:     explicit,
		Refs:         refs,
		SyncLimit:    syncPushLimit,
		Background:   background,
	}
	if background {
		opts.SyncLimit = 0
	}
	// What leaves is scanned with the rules in force now.
	if lr, ok := senv.Redactor.(*redact.Lazy); ok {
		opts.Redactor = lr.Rules()
		opts.RulesFingerprint = lr.Fingerprint()
	}
	return push.PrePush(ctx, senv.Repo, opts)
}
