package main

import (
	"errors"

	"github.com/charmbracelet/huh"
)

// errCannotPrompt is returned by confirm when the streams are not a
// terminal: the caller tells the user which flag skips the question.
var errCannotPrompt = errors.New("cannot prompt: not a terminal")

// confirm asks a yes/no question on the terminal and returns the answer.
// When the streams cannot prompt it returns errCannotPrompt; when the user
// aborts (Ctrl-C, Esc) it returns false and no error. With the ACCESSIBLE
// environment variable set the question is asked in plain text.
func confirm(f *factory, title, affirmative, negative string, def bool) (bool, error) {
	if !f.IO.CanPrompt() {
		return def, errCannotPrompt
	}
	answer := def
	form := huh.NewForm(huh.NewGroup(
		huh.NewConfirm().Title(title).Affirmative(affirmative).Negative(negative).Value(&answer),
	)).WithTheme(huh.ThemeDracula()).
		WithAccessible(f.Getenv("ACCESSIBLE") != "").
		WithInput(f.IO.In).
		WithOutput(f.IO.ErrOut)
	if err := form.Run(); err != nil {
		if errors.Is(err, huh.ErrUserAborted) {
			return false, nil
		}
		return false, err
	}
	return answer, nil
}
