package e2etest

import (
	"encoding/json"
)

// RewindList returns `entire rewind --list` as decoded JSON objects.
func (r *SessionRepo) RewindList() []map[string]any {
	r.T.Helper()
	var pts []map[string]any
	if err := json.Unmarshal([]byte(r.MustEntire("rewind", "--list")), &pts); err != nil {
		r.T.Fatal(err)
	}
	return pts
}
