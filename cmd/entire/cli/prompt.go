package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// errCannotPrompt is returned by confirm and choose when the streams are
// not a terminal: the caller tells the user which flag skips the question.
var errCannotPrompt = errors.New("cannot prompt: not a terminal")

// Prompts are plain text, read a line at a time: a question on stderr,
// numbered choices, the answer typed on stdin. They work the same for a
// screen reader (ACCESSIBLE) and in any terminal, and, unlike a full-screen
// TUI library, they never query the terminal when entire starts (bubbletea
// does so from an init function in every command, printing escape
// sequences into a plain `entire version`).

// promptAttempts bounds how often an invalid answer is asked again.
const promptAttempts = 3

// confirm asks a yes/no question and returns the answer; an empty answer
// takes def. When the streams cannot prompt it returns errCannotPrompt; end
// of input counts as "no".
func confirm(f *factory, title, affirmative, negative string, def bool) (bool, error) {
	if !f.IO.CanPrompt() {
		return def, errCannotPrompt
	}
	hint := "y/N"
	if def {
		hint = "Y/n"
	}
	in := promptReader(f)
	for i := 0; i < promptAttempts; i++ {
		fmt.Fprintf(f.IO.ErrOut, "%s (%s: y, %s: n) [%s] ", title, affirmative, negative, hint)
		line, err := in.next()
		if err != nil {
			fmt.Fprintln(f.IO.ErrOut)
			return false, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		fmt.Fprintln(f.IO.ErrOut, "Please answer y or n.")
	}
	return false, nil
}

// choose asks for one of options (shown numbered from 1) and returns its
// index; an empty answer takes def (an index, -1 for none). End of input
// or too many invalid answers return -1.
func choose(f *factory, title string, options []string, def int) (int, error) {
	if !f.IO.CanPrompt() {
		return def, errCannotPrompt
	}
	out := f.IO.ErrOut
	fmt.Fprintln(out, title)
	for i, o := range options {
		fmt.Fprintf(out, "%d. %s\n", i+1, o)
	}
	in := promptReader(f)
	for i := 0; i < promptAttempts; i++ {
		if def >= 0 {
			fmt.Fprintf(out, "Choose [1-%d] (default %d): ", len(options), def+1)
		} else {
			fmt.Fprintf(out, "Choose [1-%d]: ", len(options))
		}
		line, err := in.next()
		if err != nil {
			fmt.Fprintln(out)
			return -1, nil
		}
		line = strings.TrimSpace(line)
		if line == "" && def >= 0 {
			return def, nil
		}
		if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(options) {
			return n - 1, nil
		}
		fmt.Fprintf(out, "Please enter a number from 1 to %d.\n", len(options))
	}
	return -1, nil
}

// promptInput reads answers a line at a time from a command's stdin,
// sharing one buffer across questions.
type promptInput struct{ r *bufio.Reader }

func (p promptInput) next() (string, error) {
	line, err := p.r.ReadString('\n')
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// promptReader wraps the command's stdin in a buffer once, so that later
// questions reuse it and no typed-ahead answer is lost between them.
func promptReader(f *factory) promptInput {
	br, ok := f.IO.In.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(f.IO.In)
		f.IO.In = br
	}
	return promptInput{br}
}
