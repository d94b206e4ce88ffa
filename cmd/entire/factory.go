package main

import (
	"os"
	"time"

	"github.com/entirecli/entire/iostreams"
)

// factory hands the commands their dependencies. Members are functions or
// cheap values so that a command which never needs something never pays for
// it (a hook that exits early never opens the repository).
type factory struct {
	IO     *iostreams.IOStreams // the process's streams
	Getwd  func() (string, error)
	Getenv func(string) string
	Now    func() time.Time
}

// newFactory wires the real implementations; it is the one place where they
// are chosen.
func newFactory() *factory {
	return &factory{
		IO:     iostreams.System(), // terminal detection happens once, here
		Getwd:  os.Getwd,
		Getenv: os.Getenv,
		Now:    time.Now,
	}
}
