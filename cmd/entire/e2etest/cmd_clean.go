package e2etest

import (
	"os"
)

// WriteState writes a session state file directly, as an older entire (or
// a crash) would have left it.
func (r *SessionRepo) WriteState(id, json string) {
	r.T.Helper()
	if err := os.MkdirAll(r.Dir+"/.git/entire-sessions", 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(r.StatePath(id), []byte(json), 0o600); err != nil {
		r.T.Fatal(err)
	}
}
