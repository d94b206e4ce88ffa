package explain

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
	"github.com/entirecli/entire/agent/geminicli"
)

// TestFixtureTranscripts parses every real transcript of the shared
// fixtures: no error, and the prompts explain shows are the ones the agent
// packages find.
func TestFixtureTranscripts(t *testing.T) {
	t.Parallel()
	root := fixtureRoot()
	if root == "" {
		t.Skip("fixtures directory shared/fixtures/transcripts not found")
	}
	for _, sub := range []string{"claude-code", "gemini-cli"} {
		files, _ := filepath.Glob(filepath.Join(root, sub, "*"))
		for _, path := range files {
			if strings.HasSuffix(path, "metadata.json") {
				continue
			}
			t.Run(sub+"/"+filepath.Base(path), func(t *testing.T) {
				t.Parallel()
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				entries, err := ParseTranscript(data, 0)
				if err != nil {
					t.Fatal(err)
				}
				var an *agent.Analysis
				if sub == "claude-code" {
					an = claudecode.AnalyzeTranscript(data, agent.Position{})
				} else if an, err = geminicli.AnalyzeTranscript(data); err != nil {
					t.Skipf("gemini analysis: %v", err)
				}
				if got := prompts(entries); len(an.Prompts) > 0 && !reflect.DeepEqual(got, an.Prompts) {
					t.Errorf("prompts differ from the agent's analysis:\n got  %q\n want %q", got, an.Prompts)
				}
				if len(an.Prompts) > 0 && len(entries) == 0 {
					t.Error("no entries")
				}
			})
		}
	}
}

// fixtureRoot finds shared/fixtures/transcripts beside the repository or
// beside any ancestor directory (git worktrees); "" when absent.
func fixtureRoot() string {
	dir, err := filepath.Abs(".")
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", "fixtures", "transcripts")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
