package hooks

import (
	"time"

	"github.com/entirecli/entire/gitrepo"
	"github.com/entirecli/entire/logging"
	"github.com/entirecli/entire/session"
	"github.com/entirecli/entire/settings"
	"github.com/entirecli/entire/strategy"
)

// open prepares what every handler needs once it knows it has work: the
// settings, the log and the strategy environment.
func open(env Env, repo *gitrepo.Repo, component string) (*strategy.Env, *logging.Logger, error) {
	s, err := settings.Load(repo.Root)
	if err != nil {
		s = settings.Defaults() // a settings error must not stop the hook (SPEC 3.2)
	}
	log := logging.Open(logging.Options{RepoRoot: repo.Root, Settings: s, Getenv: env.Getenv, Fallback: env.Stderr})
	if err != nil {
		log.Warn("read settings", "error", err)
	}
	red := NewRedactor(s, func(err error) { log.Warn("redaction settings", "error", err) })
	senv := &strategy.Env{
		Repo:       repo,
		Sessions:   session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: env.Now}),
		Settings:   s,
		Redactor:   red,
		Log:        log.ForComponent(component),
		Stderr:     env.Stderr,
		Now:        env.Now,
		Getenv:     env.Getenv,
		CLIVersion: env.CLIVersion,
	}
	return senv, log, nil
}

// since is the duration of a hook in milliseconds, for the log.
func since(env Env, start time.Time) int64 { return env.Now().Sub(start).Milliseconds() }
