package hooks

import (
	"io"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
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

// warnf writes a line for the person on env.Stderr (nothing when nil),
// escaped (iostreams.Escape): what it names may come from someone else (an
// error quoting git's output, a ref or path name, a panic's value, a hook
// verb from a committed settings file).
func (env Env) warnf(format string, a ...any) { iostreams.Printf(env.Stderr, format, a...) }
