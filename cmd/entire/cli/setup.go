package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/settings"
)

// disabledMessage is what rewind, resume and explain print when Entire is
// disabled in settings (SPEC 1.1).
const disabledMessage = "Entire is disabled. Run `entire enable` to re-enable."

// checkEnabled is the disabled guard of SPEC 1.1 for commands that must do
// nothing while Entire is disabled (rewind, resume, explain). It reports
// whether the command may go on. When the merged settings say
// "enabled": false it prints the disabled message on stdout and returns
// false; the caller then returns nil (exit 0). A settings file that cannot
// be read or parsed counts as enabled, and so do missing files. The error
// is that of opening the repository (errNotRepository outside one).
func checkEnabled(f *factory) (enabled bool, err error) {
	repo, err := f.OpenRepo()
	if err != nil {
		return false, err
	}
	if settings.Enabled(repo.Root) {
		return true, nil
	}
	fmt.Fprintln(f.IO.Out, disabledMessage)
	return false, nil
}

// openRepoFor opens the repository for a setup command, or prints the
// not-a-repository message of SPEC 1.3 naming command and returns a silent
// error (exit 1).
func openRepoFor(f *factory, command string) (*gitrepo.Repo, error) {
	repo, err := f.OpenRepo()
	if errors.Is(err, errNotRepository) {
		fmt.Fprintf(f.IO.ErrOut, "Not a git repository. Please run '%s' from within a git repository.\n", command)
		return nil, silentError(err)
	}
	return repo, err
}

// hasCommits reports whether HEAD points to a commit.
func hasCommits(repo *gitrepo.Repo) bool {
	h, err := repo.Head()
	return err == nil && !h.IsZero()
}

// noCommitsNote is printed by enable in a repository without commits
// (SPEC 5.6).
const noCommitsNote = "Note: this repository has no commits yet. Checkpoints start after the first commit."

// pushTarget says where checkpoint data goes, as decided by settings
// (push.Resolve outside a push: origin, or the elected remote, stands for
// the pushed one), with the remote's URL for a configured remote.
type pushTarget struct {
	push.Destination
	// URL is the configured remote's URL as `git remote get-url` prints
	// it; for a repository of its own, its URL.
	URL string
}

// resolvePushTarget works out where checkpoints are pushed for s.
func resolvePushTarget(ctx context.Context, f *factory, repo *gitrepo.Repo, s *settings.Settings) pushTarget {
	t := pushTarget{Destination: push.Resolve(ctx, repo, s, push.ResolveOptions{Getenv: f.Getenv})}
	t.URL = t.Destination.URL
	if t.Remote != "" && t.Fetches() {
		if out, err := repo.RunGit(ctx, "remote", "get-url", "--", t.Remote); err == nil {
			t.URL = strings.TrimSpace(string(out))
		}
	}
	return t
}

// enableLine is the sentence enable prints once about where checkpoints go.
func (t pushTarget) enableLine() string {
	switch {
	case t.Disabled:
		return "Checkpoints stay local (strategy_options.push_sessions is false)."
	case t.Pushes() && t.Repo != "":
		return fmt.Sprintf("Checkpoints will be pushed to %s (%s) whenever you push "+
			"(%s; push_sessions: false keeps them local).", t.Repo, t.URL, t.Source)
	case t.Pushes():
		return fmt.Sprintf("Checkpoints will be pushed to '%s' with your branches "+
			"(set strategy_options.checkpoint_remote to change, or push_sessions: false to keep them local).", t.Remote)
	case t.Disabled:
		return "Checkpoints stay local (strategy_options.push_sessions is false)."
	case t.NoRemote && t.Repo == "":
		return fmt.Sprintf("Checkpoints stay local for now: remote '%s' does not exist yet "+
			"(once it does they are pushed to it with your branches; set strategy_options.push_sessions: false to keep them local).", t.Remote)
	default:
		return fmt.Sprintf("Checkpoints stay local: %s. To change that: %s.", t.Local, t.Fix)
	}
}

// statusLine is the line status prints about where checkpoints go.
func (t pushTarget) statusLine() string {
	switch {
	case t.Disabled:
		return "Checkpoints: kept local (strategy_options.push_sessions is false)"
	case t.Local != "" && (t.NoRemote && t.Repo == "" || t.Fix == ""):
		return fmt.Sprintf("Checkpoints: kept local (%s)", t.Local)
	case t.Local != "":
		return fmt.Sprintf("Checkpoints: kept local (%s)\n  To change that: %s", t.Local, t.Fix)
	case t.Repo != "":
		return fmt.Sprintf("Checkpoints: pushed to %s (%s) whenever you push (from %s)", t.Repo, t.URL, t.Source)
	case t.Source != "default":
		return fmt.Sprintf("Checkpoints: pushed to '%s' (%s) with your branches (from %s)", t.Remote, t.URL, t.Source)
	}
	return fmt.Sprintf("Checkpoints: pushed to '%s' (%s) with your branches", t.Remote, t.URL)
}
