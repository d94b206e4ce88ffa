package cli

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// fakeTTY is a terminal whose input is fixed and whose output is kept.
type fakeTTY struct {
	in     *strings.Reader
	out    bytes.Buffer
	closed bool
}

func (t *fakeTTY) Read(p []byte) (int, error)  { return t.in.Read(p) }
func (t *fakeTTY) Write(p []byte) (int, error) { return t.out.Write(p) }
func (t *fakeTTY) Close() error                { t.closed = true; return nil }

func TestTTYConfirmer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer, agent, prompt string
		noTTY                       bool
		want                        bool
		wantOut                     string
	}{
		{name: "enter means yes", answer: "\n", agent: "Claude Code", prompt: "fix  the\nbug", want: true,
			wantOut: "You have an active Claude Code session.\nLast Prompt: fix the bug\nLink this commit to Claude Code session context? [Y/n] "},
		{name: "no", answer: "n\n", agent: "Claude Code", want: false,
			wantOut: "You have an active Claude Code session.\nLink this commit to Claude Code session context? [Y/n] "},
		{name: "yes in capitals", answer: " YES \n", agent: "Agent", want: true},
		{name: "anything else is no", answer: "maybe\n", agent: "Agent", want: false},
		{name: "end of input means yes", answer: "", agent: "Agent", want: true},
		{name: "escapes are printed escaped", answer: "y\n", agent: "A\x1b[2J", prompt: "p\x1b]0;x\a", want: true,
			wantOut: "You have an active A\\x1b[2J session.\nLast Prompt: p\\x1b]0;x\\a\nLink this commit to A\\x1b[2J session context? [Y/n] "},
		{name: "no terminal means yes", noTTY: true, agent: "Agent", want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tty := &fakeTTY{in: strings.NewReader(tc.answer)}
			c := &ttyConfirmer{getenv: func(string) string { return "" }, open: func() (io.ReadWriteCloser, error) {
				if tc.noTTY {
					return nil, errors.New("no tty")
				}
				return tty, nil
			}}
			if got := c.ConfirmLink(tc.agent, tc.prompt); got != tc.want {
				t.Errorf("ConfirmLink = %v, want %v", got, tc.want)
			}
			if tc.wantOut != "" && tty.out.String() != tc.wantOut {
				t.Errorf("terminal got:\n%q\nwant:\n%q", tty.out.String(), tc.wantOut)
			}
			if !tc.noTTY && !tty.closed {
				t.Error("terminal left open")
			}
		})
	}
}

func TestTTYConfirmerInteractive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env    string
		opens  bool
		want   bool
		opened bool
	}{
		{env: "1", opens: false, want: true},
		{env: "0", opens: true, want: false},
		{env: "", opens: true, want: true, opened: true},
		{env: "", opens: false, want: false, opened: true},
	} {
		opened := false
		tty := &fakeTTY{in: strings.NewReader("")}
		c := &ttyConfirmer{
			getenv: func(k string) string {
				if k == "ENTIRE_TEST_TTY" {
					return tc.env
				}
				return ""
			},
			open: func() (io.ReadWriteCloser, error) {
				opened = true
				if !tc.opens {
					return nil, errors.New("no tty")
				}
				return tty, nil
			},
		}
		if got := c.Interactive(); got != tc.want || opened != tc.opened {
			t.Errorf("ENTIRE_TEST_TTY=%q, terminal opens %v: Interactive = %v (opened %v), want %v (opened %v)", tc.env, tc.opens, got, opened, tc.want, tc.opened)
		}
		if opened && tc.opens && !tty.closed {
			t.Error("terminal left open")
		}
	}
}
