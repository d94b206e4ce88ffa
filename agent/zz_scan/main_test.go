package scan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/claudecode"
)

func TestDump(t *testing.T) {
	a := claudecode.New()
	files, _ := filepath.Glob("/work/shared/fixtures/transcripts/claude-code/cli__*-metadata.json")
	for _, m := range files {
		var md struct {
			Files []string `json:"files_touched"`
			Start int `json:"transcript_lines_at_start"`
			CStart int `json:"checkpoint_transcript_start"`
			Tok *agent.TokenUsage `json:"token_usage"`
		}
		b, _ := os.ReadFile(m)
		json.Unmarshal(b, &md)
		tr := m[:len(m)-len("metadata.json")] + "full.jsonl"
		an, err := a.ScanTranscript(tr, agent.Position{Entries: md.Start})
		if err != nil { t.Fatal(err) }
		fmt.Println("==", filepath.Base(tr), md.Start, an.To.Entries)
		fmt.Println(" meta files:", md.Files)
		fmt.Println(" ours files:", an.ModifiedFiles)
		fmt.Printf(" meta tok: %+v\n ours tok: %+v sub=%+v ids=%v\n", md.Tok, an.Tokens, an.Tokens.SubagentTokens, an.SubagentIDs)
		fmt.Println(" prompts:", len(an.Prompts), "tools:", len(an.ToolUses))
	}
}
