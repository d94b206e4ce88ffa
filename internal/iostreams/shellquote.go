package iostreams

import "strings"

// ShellQuote quotes s for a POSIX shell when it holds anything but the
// characters of plain ref names and URLs, so that a command printed for the
// user to paste runs with s as one word, whatever s holds ($(...), `;`).
// It does not make s safe for a terminal: pass the printed line through
// Escape when s may come from someone else.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
