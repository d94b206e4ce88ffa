package cli_test

import (
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/cli"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// With a terminal, resume asks SPEC 6.5's question before fetching a branch
// that is only on origin; "n" fetches nothing and checks nothing out.
func TestResumeAsksBeforeFetching(t *testing.T) {
	t.Parallel()
	r, _ := e2etest.CommittedSession(t)
	remote := e2etest.Publish(t, r)
	for _, answer := range []string{"n", "y"} {
		clone := e2etest.SecondClone(t, remote)
		f, _, errOut := cli.TestFactory(clone, map[string]string{"ACCESSIBLE": "1"})
		f.IO.In = &e2etest.LineReader{Lines: []string{answer}}
		f.IO.SetStdinTTY(true)
		f.IO.SetStderrTTY(true)
		code := cli.Run([]string{"resume", "feature"}, f)
		if !strings.Contains(errOut.String(), "Branch 'feature' not found locally. Fetch from origin?") {
			t.Errorf("%s: no question:\n%s", answer, errOut)
		}
		has, _ := gittest.GitErr(clone, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/feature")
		switch answer {
		case "n":
			if code == cli.ExitOK || has != "" {
				t.Errorf("declined fetch: exit %d, origin/feature %q", code, has)
			}
		case "y":
			// (The restore itself may stop later: no Claude Code
			// project directory in this test's HOME.)
			if has == "" {
				t.Errorf("accepted fetch did not fetch: exit %d\n%s", code, errOut)
			}
		}
	}
}
