package hooks

import (
	"time"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/logging"
	"github.com/entirecli/entire/internal/redact"
	"github.com/entirecli/entire/internal/settings"
	"github.com/entirecli/entire/strategy"
)

// hookSettings are a repository's settings as a hook read them: once per
// hook, for the enabled check and everything after it.
type hookSettings struct {
	*settings.Settings
	// err is why the files could not be read; Settings are then the
	// defaults (a settings error must not stop the hook, SPEC 3.2).
	err error
}

// loadSettings reads the settings of the repository at root for a hook.
func loadSettings(root string) hookSettings {
	s := settings.LoadOrDefaults(root)
	return hookSettings{Settings: s, err: s.Unreadable}
}

// enabled reports whether entire records in the repository: unreadable
// settings count as enabled, as settings.Enabled does.
func (h hookSettings) enabled() bool { return h.err != nil || h.Enabled }

// open prepares what every handler needs once it knows it has work: the
// log and the strategy environment, from the settings the hook read.
func open(env Env, repo *gitrepo.Repo, component string, hs hookSettings) (*strategy.Env, *logging.Logger, error) {
	s, err := hs.Settings, hs.err
	// The log and the transient files go under .entire/: in a checkout
	// without .entire/.gitignore they must not become untracked files.
	_, ierr := settings.EnsureIgnored(repo.Root, repo.CommonDir)
	// Every line of a hook names its component (SPEC 7.5); the locks'
	// lines name theirs.
	base := logging.Open(logging.Options{RepoRoot: repo.Root, Settings: s, Getenv: env.Getenv, Fallback: env.Stderr})
	log := base.WithComponent(component)
	if err != nil {
		log.Warn("read settings", "error", err)
	}
	if ierr != nil {
		log.Warn("ignore entire's files", "error", ierr)
	}
	red := redact.FromSettings(s, func(err error) { log.Warn("redaction settings", "error", err) }, env.Getenv)
	// A state file no hook can read would fail every hook of its session:
	// it is set aside (entire doctor lists it) and the session goes on.
	onCorrupt := func(id, movedTo string, cause error) {
		log.Warn("unreadable session state set aside", "session_id", id, "moved_to", movedTo, "error", cause)
		env.warnf("[entire] warning: the state of session %s could not be read (%v); moved it to %s and started the session afresh (see `entire doctor`)\n", id, cause, movedTo)
	}
	repo.Log = base.ForComponent("locks") // stale locks removed
	senv := &strategy.Env{
		Repo:       repo,
		Sessions:   session.NewStore(session.Options{GitCommonDir: repo.CommonDir, Now: env.Now, OnCorrupt: onCorrupt, OnLockBreak: repo.LockBroken}),
		Settings:   s,
		Redactor:   red,
		Log:        log.Logger,
		Stderr:     env.Stderr,
		Now:        env.Now,
		Getenv:     env.Getenv,
		CLIVersion: env.CLIVersion,
		Confirmer:  env.Confirmer,
		// A turn start repairs the git hooks (husky overwrote them, an
		// older entire installed them).
		EnsureGitHooks: gitHookRepairer(repo, env.Stderr),
	}
	return senv, log, nil
}

// since is the duration of a hook in milliseconds, for the log.
func since(env Env, start time.Time) int64 { return env.Now().Sub(start).Milliseconds() }
