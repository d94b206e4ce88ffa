package scan

import (
	"fmt"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
)

func TestFrom0(t *testing.T) {
	a := claudecode.New()
	for _, f := range []string{"cli__0e-3fdc072c53-0", "cli__76-62d755ef9f-2", "cli__8e-0a64736bc7-0", "cli__e2-775d4606d9-0"} {
		an, _ := a.ScanTranscript("/work/shared/fixtures/transcripts/claude-code/"+f+"-full.jsonl", agent.Position{})
		fmt.Println(f, an.ModifiedFiles, an.SubagentIDs)
	}
}
