package hooks

import (
	"io"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/strategy"
)

// Env is what a hook handler works with; the command layer fills it.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time
	// OpenRepo opens the repository of the working directory (git's
	// GIT_DIR and GIT_WORK_TREE honoured).
	OpenRepo func() (*gitrepo.Repo, error)
	// CLIVersion is recorded in what the hooks write.
	CLIVersion string
	// Confirmer asks the person committing on a terminal whether to link
	// the commit to a session (git hooks); nil: nobody is asked.
	Confirmer strategy.LinkConfirmer
}
