// Package iostreams carries the standard streams a command reads and writes,
// with what is known about them (terminal or not), so that commands can be
// driven by tests with in-memory buffers.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams is how a command reaches the outside world. Commands write data
// to Out and talk (progress, warnings) to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY  bool
	outTTY bool
	errTTY bool
}

// System returns streams bound to the process's stdin, stdout and stderr,
// with terminal detection done once here.
func System() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		inTTY:  isTerminal(os.Stdin),
		outTTY: isTerminal(os.Stdout),
		errTTY: isTerminal(os.Stderr),
	}
}

// Test returns streams backed by three buffers, none of them a terminal.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.inTTY }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// IsStderrTTY reports whether standard error is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// SetStdinTTY overrides terminal detection for standard input (tests).
func (s *IOStreams) SetStdinTTY(v bool) { s.inTTY = v }

// SetStdoutTTY overrides terminal detection for standard output (tests).
func (s *IOStreams) SetStdoutTTY(v bool) { s.outTTY = v }

// SetStderrTTY overrides terminal detection for standard error (tests).
func (s *IOStreams) SetStderrTTY(v bool) { s.errTTY = v }

// CanPrompt reports whether the command may ask the user a question: both
// standard input and standard error must be terminals.
func (s *IOStreams) CanPrompt() bool { return s.inTTY && s.errTTY }

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
