//go:build torture

package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// TestExternalAgentMisbehaving: an external agent program that hangs,
// crashes, answers garbage or points its session_ref out of its session
// directory. The hook ends within its bounds with a status that does not
// block the agent and one clear line; the work tree is still recorded,
// nothing saved is lost, and a commit is condensed.
func TestExternalAgentMisbehaving(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		// wantFail: the hook fails (exit 1, one line on stderr); else it
		// goes on without the transcript and logs why.
		wantFail bool
		line     string
	}{
		{"parse-hook:hang", true, "no answer within 5s"},
		{"parse-hook:crash", true, "simulated crash in parse-hook"},
		{"parse-hook:garbage", true, "not the JSON the protocol asks for"},
		{"parse-hook:flood", true, "answer larger than"},
		{"parse-hook:escape", false, "session_ref refused"},
		{"read-transcript:crash", false, "transcript not read"},
		{"read-transcript:hang", false, "transcript not read"},
	} {
		t.Run(strings.ReplaceAll(tc.mode, ":", "-"), func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			s := e2etest.NewAcmeSession(t, r, "acme-h")
			r.MustEntire("enable", "--agent", "acme")
			s.MustHook("session-start", "")
			s.Turn("Turn one: make a", map[string]string{"a.txt": "one\n"}, "Wrote a.txt.")
			e2etest.AwaitFinishers(t, r.Dir)
			before := len(r.Points())

			s.Append(`{"type":"user","message":{"content":"Turn two: change a"}}`)
			bad := "ACME_MISBEHAVE=" + tc.mode
			if _, errOut, code := s.Hook("prompt", "Turn two: change a", bad); tc.wantFail && (code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, tc.line)) {
				t.Errorf("prompt hook: exit %d, stderr %q; want exit 1 and one line with %q", code, errOut, tc.line)
			}
			if err := os.WriteFile(filepath.Join(r.Dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, errOut, code := s.Hook("stop", "", bad)
			if took := time.Since(start); took > 15*time.Second {
				t.Errorf("stop hook took %s", took)
			}
			if tc.wantFail {
				if code != 1 || !strings.Contains(errOut, tc.line) || strings.ContainsRune(errOut, 0x1b) {
					t.Errorf("stop hook: exit %d, stderr %q; want exit 1 and one escaped line with %q", code, errOut, tc.line)
				}
			} else if code != 0 {
				t.Errorf("stop hook: exit %d: %s", code, errOut)
			}
			e2etest.AwaitFinishers(t, r.Dir)
			if log := e2etest.LogText(r.Dir); !strings.Contains(log, tc.line) {
				t.Errorf("the log does not say %q:\n%s", tc.line, log)
			}
			if after := len(r.Points()); after < before {
				t.Errorf("rewind points %d, were %d", after, before)
			}
			if !tc.wantFail {
				if got := len(r.Points()); got != before+1 {
					t.Errorf("the misbehaving turn's step was not recorded: %d points, were %d", got, before)
				}
			}

			if tc.wantFail {
				// Turn two was never recorded: a change of a.txt now is
				// the person's, whose commit links no checkpoint. The
				// agent's own work is committed.
				if err := os.WriteFile(filepath.Join(r.Dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A commit is condensed with the program still misbehaving
			// (its analyzers too).
			env := []string{bad + ",extract-modified-files:hang,calculate-tokens:crash"}
			start = time.Now()
			r.Commit("add a", env, "a.txt")
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("commit took %s", took)
			}
			e2etest.AwaitFinishers(t, r.Dir)
			if cp := e2etest.CheckpointAt(t, r.Dir, "HEAD"); cp == "" {
				t.Errorf("the commit has no checkpoint")
			}
			gittest.Fsck(t, r.Dir)
		})
	}
}
