package geminicli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	"github.com/entirecli/entire/agent/geminicli"
)

// TestMetadataComparison compares files_touched of Entire's checkpoint
// metadata with what the transcript shows. None of the Gemini metadata files
// carries token_usage.
func TestMetadataComparison(t *testing.T) {
	t.Parallel()
	dir := agenttest.TranscriptFixtureDir(t, "gemini-cli")
	metas, _ := filepath.Glob(filepath.Join(dir, "cli__*-metadata.json"))
	if len(metas) == 0 {
		t.Skip("no metadata fixtures")
	}
	// Differences and why: the listed metadata value is expected instead
	// of ours; every other fixture must match exactly.
	expected := map[string]struct {
		metadata []string
		why      string
	}{
		"cli__9c-53780d06b7-0": {nil, "auto-commit checkpoint with checkpoints_count 0: the original recorded no files (null); the transcript's write_file of docs/blue.md is real, ours is right"},
		"cli__ab-2b9748b105-0": {nil, "same session as cli__9c, later copy; same reason"},
		"cli__c9-45f262e88d-0": {nil, "same session as cli__9c, earlier copy; same reason"},
		"cli__ec-38b74f08e3-2": {[]string{"cmd/entire/cli/integration_test/concurrent_session_warning_test.go", "cmd/entire/cli/integration_test/gemini_concurrent_session_test.go"},
			"the transcript holds a single hook-failure warning and no tool calls; the files came from git (agent label \"Agent\"), not from this transcript"},
	}
	a := geminicli.New()
	for _, m := range metas {
		name := strings.TrimSuffix(filepath.Base(m), "-metadata.json")
		var md struct {
			Files []string `json:"files_touched"`
			Start int      `json:"checkpoint_transcript_start"`
		}
		raw, _ := os.ReadFile(m)
		if err := json.Unmarshal(raw, &md); err != nil {
			t.Fatal(err)
		}
		an, err := a.ScanTranscript(filepath.Join(dir, name+"-full.jsonl"), agent.Position{Entries: md.Start})
		if err != nil {
			t.Fatal(err)
		}
		exp, special := expected[name]
		switch {
		case special && !reflect.DeepEqual(md.Files, exp.metadata):
			t.Errorf("%s: metadata files %q, expected %q (%s)", name, md.Files, exp.metadata, exp.why)
		case special && name != "cli__ec-38b74f08e3-2" && !reflect.DeepEqual(an.ModifiedFiles, []string{"docs/blue.md"}):
			t.Errorf("%s: ours %q (%s)", name, an.ModifiedFiles, exp.why)
		case special && name == "cli__ec-38b74f08e3-2" && len(an.ModifiedFiles) != 0:
			t.Errorf("%s: ours %q (%s)", name, an.ModifiedFiles, exp.why)
		case !special && !reflect.DeepEqual(an.ModifiedFiles, md.Files):
			t.Errorf("%s: ours %q, metadata %q", name, an.ModifiedFiles, md.Files)
		}
	}
}
