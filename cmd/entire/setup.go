package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

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

// pushTarget says where the metadata branch goes, as decided by settings:
// either kept local, or pushed to Remote.
type pushTarget struct {
	// Local is true when nothing is pushed.
	Local bool
	// NoRemote is true when checkpoints stay local only because the
	// checkpoint remote does not exist (yet).
	NoRemote bool
	// Reason says why checkpoints stay local ("" when they are pushed).
	Reason string
	// Remote is the checkpoint remote name (strategy_options.checkpoint_remote).
	Remote string
	// URL is the remote's URL as `git remote get-url` prints it; empty when
	// the remote does not exist.
	URL string
}

// resolvePushTarget works out where checkpoints are pushed for s: nowhere
// when strategy_options.push_sessions is false or the checkpoint remote does
// not exist, else to the checkpoint remote. It runs one git command.
func resolvePushTarget(ctx context.Context, repo *gitrepo.Repo, s *settings.Settings) pushTarget {
	t := pushTarget{Remote: s.CheckpointRemote()}
	if !s.PushSessions() {
		t.Local, t.Reason = true, "strategy_options.push_sessions is false"
		return t
	}
	out, err := repo.RunGit(ctx, "remote", "get-url", "--", t.Remote)
	if err != nil {
		t.Local, t.NoRemote, t.Reason = true, true, fmt.Sprintf("remote '%s' does not exist", t.Remote)
		return t
	}
	t.URL = strings.TrimSpace(string(out))
	return t
}

// enableLine is the sentence enable prints once about where checkpoints go.
func (t pushTarget) enableLine() string {
	switch {
	case !t.Local:
		return fmt.Sprintf("Checkpoints will be pushed to '%s' with your branches "+
			"(set strategy_options.checkpoint_remote to change, or push_sessions: false to keep them local).", t.Remote)
	case t.NoRemote:
		return fmt.Sprintf("Checkpoints stay local for now: remote '%s' does not exist yet "+
			"(once it does they are pushed to it with your branches; set strategy_options.push_sessions: false to keep them local).", t.Remote)
	default:
		return "Checkpoints stay local (strategy_options.push_sessions is false)."
	}
}

// statusLine is the line status prints about where checkpoints go.
func (t pushTarget) statusLine() string {
	if t.Local {
		return fmt.Sprintf("Checkpoints: kept local (%s)", t.Reason)
	}
	return fmt.Sprintf("Checkpoints: pushed to '%s' (%s) with your branches", t.Remote, t.URL)
}
