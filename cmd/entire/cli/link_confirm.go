package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/strategy"
)

// ttyConfirmer asks on the controlling terminal whether to link a commit
// to an agent session (strategy.LinkConfirmer). Git runs its hooks with
// their streams redirected, so it talks to /dev/tty, not to the hook's
// stdin and stderr.
type ttyConfirmer struct {
	// getenv reads ENTIRE_TEST_TTY: "1" or "0" decides whether a person
	// is at a terminal (tests), instead of whether the terminal opens.
	getenv func(string) string
	// open opens the terminal for reading and writing.
	open func() (io.ReadWriteCloser, error)
}

// newTTYConfirmer returns the confirmer of the git hooks, on /dev/tty.
func newTTYConfirmer(getenv func(string) string) *ttyConfirmer {
	return &ttyConfirmer{getenv: getenv, open: func() (io.ReadWriteCloser, error) {
		return os.OpenFile("/dev/tty", os.O_RDWR, 0)
	}}
}

// Interactive reports whether a person is at a terminal for this commit:
// ENTIRE_TEST_TTY ("1" or "0") decides in tests, else whether the terminal
// can be opened.
func (c *ttyConfirmer) Interactive() bool {
	if v := c.getenv("ENTIRE_TEST_TTY"); v != "" {
		return v == "1"
	}
	tty, err := c.open()
	if err != nil {
		return false
	}
	tty.Close()
	return true
}

// ConfirmLink asks whether to link the commit to the session; an empty
// answer, or a terminal that cannot be opened, means yes.
func (c *ttyConfirmer) ConfirmLink(agentLabel, prompt string) bool {
	tty, err := c.open()
	if err != nil {
		return true
	}
	defer tty.Close()
	// The prompt (and the agent type, from the hook payload) may hold
	// pasted escape sequences: printed escaped.
	agentLabel = iostreams.Escape(agentLabel)
	fmt.Fprintf(tty, "You have an active %s session.\n", agentLabel)
	if prompt != "" {
		fmt.Fprintf(tty, "Last Prompt: %s\n", iostreams.Escape(strategy.ShortPrompt(prompt)))
	}
	fmt.Fprintf(tty, "Link this commit to %s session context? [Y/n] ", agentLabel)
	line, _ := bufio.NewReader(tty).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "" || answer == "y" || answer == "yes"
}
