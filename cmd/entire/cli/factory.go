package cli

import (
	"errors"
	"os"
	"sync"
	"time"

	// Each agent registers itself with the agent registry; this is the one
	// place the binary imports them.
	_ "github.com/entirecli/entire/agent/all"

	"github.com/entirecli/entire/agent/external"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
)

// errNotRepository is the user-facing error for commands run outside a git
// repository.
var errNotRepository = errors.New("not a git repository (run this inside a git repository)")

// factory hands the commands their dependencies. Members are functions or
// cheap values so that a command which never needs something never pays for
// it (a hook that exits early never opens the repository).
type factory struct {
	IO     *iostreams.IOStreams   // the process's streams
	Getwd  func() (string, error) // working directory
	Getenv func(string) string    // environment lookup
	Now    func() time.Time       // clock
	// OpenRepo opens the repository containing the working directory (as
	// git finds it, GIT_DIR included), once; errNotRepository outside one.
	OpenRepo func() (*gitrepo.Repo, error)
	// External are the external agent programs found at the start (see
	// externalAgents), skipped ones included.
	External []external.Found
}

// newFactory wires the real implementations; it is the one place where they
// are chosen.
func newFactory() *factory {
	f := &factory{
		IO:     iostreams.System(), // terminal detection happens once, here
		Getwd:  os.Getwd,
		Getenv: os.Getenv,
		Now:    time.Now,
	}
	f.OpenRepo = repoOpener(f) // depends on Getwd and Getenv
	return f
}

// repoOpener returns a memoised opener of the repository at f's working
// directory.
func repoOpener(f *factory) func() (*gitrepo.Repo, error) {
	var once sync.Once
	var repo *gitrepo.Repo
	var err error
	return func() (*gitrepo.Repo, error) {
		once.Do(func() {
			var wd string
			if wd, err = f.Getwd(); err != nil {
				return
			}
			repo, err = gitrepo.Open(wd, gitrepo.Options{Getenv: f.Getenv})
			if errors.Is(err, gitrepo.ErrNotRepository) {
				err = errNotRepository
			}
		})
		return repo, err
	}
}
