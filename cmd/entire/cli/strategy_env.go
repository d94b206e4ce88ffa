package cli

import (
	"context"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/logging"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/strategy"
)

// loadSettings returns the repository's settings, the defaults when they
// cannot be read (as the hooks do, SPEC 3.2).
func loadSettings(repo *gitrepo.Repo) *settings.Settings {
	return settings.LoadOrDefaults(repo.Root)
}

// metadataStore is the checkpoint store of repo that reads the checkpoint
// destination's copy of the metadata branch where the local one is missing
// (a fresh clone), and that destination.
func metadataStore(ctx context.Context, f *factory, repo *gitrepo.Repo) (*checkpoint.Store, push.Destination) {
	s := loadSettings(repo)
	dest := push.Resolve(ctx, repo, s, push.ResolveOptions{Getenv: f.Getenv})
	layout, _ := checkpoint.LayoutOf(s.CheckpointsType())
	store := checkpoint.NewStore(repo, f.Now).WithLayout(layout)
	if dest.Fetches() {
		store = store.WithRemoteRef(dest.TrackingRef(checkpoint.MetadataBranch))
	}
	return store, dest
}

// sessionStore is the session state store of repo.
func sessionStore(f *factory, repo *gitrepo.Repo) *session.Store {
	return session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: f.Now})
}

// openStrategyEnv builds the strategy environment of a command that
// writes checkpoints (doctor's condensation): settings, the log file
// (close it with the returned logger) and the user's redaction rules.
func openStrategyEnv(f *factory, repo *gitrepo.Repo, component string) (*strategy.Env, *logging.Logger) {
	s := loadSettings(repo)
	log := logging.Open(logging.Options{RepoRoot: repo.Root, Settings: s, Getenv: f.Getenv, Fallback: f.IO.ErrOut})
	red := redact.FromSettings(s, func(err error) { log.Warn("redaction settings", "error", err) }, nil)
	repo.Log = log.ForComponent("locks") // stale locks removed
	sessions := session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: f.Now, OnLockBreak: repo.LockBroken})
	env := &strategy.Env{
		Repo: repo, Sessions: sessions, Settings: s, Redactor: red,
		Log: log.ForComponent(component), Stderr: f.IO.ErrOut, Now: f.Now, Getenv: f.Getenv, CLIVersion: version,
	}
	return env, log
}
