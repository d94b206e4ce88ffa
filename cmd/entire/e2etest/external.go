package e2etest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/entirecli/entire/agent/external/externaltest"
)

// AcmeProgram is the fake external agent acme (externaltest) as a
// program of a tier: pass it to Main, and the test binary is
// entire-agent-acme on the tests' PATH.
var AcmeProgram = Program{Name: externaltest.Prefix + "acme", Main: externaltest.MainProcess}

// AcmeSession is a session of the fake external agent acme in a
// repository: its hooks, run as the agent would run them, and its
// transcript.
type AcmeSession struct {
	T          *testing.T
	R          *SessionRepo
	ID         string
	Transcript string
}

// NewAcmeSession starts a session id of acme in r, with a home of its own
// (ACME_HOME, added to r.Env).
func NewAcmeSession(t *testing.T, r *SessionRepo, id string) *AcmeSession {
	t.Helper()
	home := t.TempDir()
	r.Env = append(r.Env, "ACME_HOME="+home)
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	return &AcmeSession{T: t, R: r, ID: id, Transcript: filepath.Join(home, "sessions", id+".jsonl")}
}

// Hook runs `entire hooks acme <verb>` with the agent's payload and extra
// environment.
func (s *AcmeSession) Hook(verb, prompt string, env ...string) (stdout, stderr string, code int) {
	s.T.Helper()
	b, _ := json.Marshal(map[string]string{"session": s.ID, "prompt": prompt})
	return RunEntire(s.T, s.R.Dir, append(append([]string{}, s.R.Env...), env...), string(b), "hooks", "acme", verb)
}

// MustHook is Hook that requires exit 0.
func (s *AcmeSession) MustHook(verb, prompt string) {
	s.T.Helper()
	if _, errOut, code := s.Hook(verb, prompt); code != 0 {
		s.T.Fatalf("hooks acme %s: exit %d: %s", verb, code, errOut)
	}
}

// Append appends lines to the transcript.
func (s *AcmeSession) Append(lines ...string) {
	s.T.Helper()
	f, err := os.OpenFile(s.Transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.T.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			s.T.Fatal(err)
		}
	}
}

// Turn plays one turn: the prompt, the files written (100 input and 20
// output tokens), the answer.
func (s *AcmeSession) Turn(prompt string, files map[string]string, answer string) {
	s.T.Helper()
	s.Append(externaltest.Line("user", prompt, nil, 0, 0))
	s.MustHook("prompt", prompt)
	var names []string
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(s.R.Dir, name), []byte(content), 0o644); err != nil {
			s.T.Fatal(err)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	s.Append(externaltest.Line("assistant", answer, names, 100, 20))
	s.MustHook("tool", "")
	s.MustHook("stop", "")
}
