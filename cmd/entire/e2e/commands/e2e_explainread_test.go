package commands

import (
	"fmt"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// oneSessionCheckpoint returns the metadata-branch files of checkpoint id in
// the Entire 0.4.x layout: one Claude Code session with the given session
// metadata fields (JSON members, without braces), transcript (none when
// empty) and root token_usage member (none when empty).
func oneSessionCheckpoint(id, sessionFields, transcript, rootUsage string) map[string]string {
	shard := id[:2] + "/" + id[2:]
	tr := ""
	if transcript != "" {
		tr = "/" + shard + "/0/full.jsonl"
	}
	root := `{"checkpoint_id":"` + id + `","strategy":"manual-commit","checkpoints_count":1,"files_touched":[],"sessions":[{"metadata":"/` + shard + `/0/metadata.json","transcript":"` + tr + `","context":"","content_hash":"","prompt":""}]`
	if rootUsage != "" {
		root += `,"token_usage":` + rootUsage
	}
	files := map[string]string{
		shard + "/metadata.json":   root + "}",
		shard + "/0/metadata.json": `{"checkpoint_id":"` + id + `","session_id":"s-` + id + `","strategy":"manual-commit","created_at":"2025-06-02T11:01:00Z","checkpoints_count":1,"files_touched":[],"agent":"Claude Code"` + sessionFields + `}`,
	}
	if transcript != "" {
		files[shard+"/0/full.jsonl"] = transcript
	}
	return files
}

// commitLinking commits an empty change on the current branch of dir whose
// message links to checkpoint id, and returns its hash.
func commitLinking(t *testing.T, dir, subject, id string) string {
	t.Helper()
	gittest.Git(t, dir, "commit", "-q", "--no-verify", "--allow-empty", "-m", subject+"\n\nEntire-Checkpoint: "+id)
	return gittest.Git(t, dir, "rev-parse", "HEAD")
}

// The list shows up to 100 checkpoints that exist: commits linking to
// checkpoints that are not on the metadata branch do not use up places.
func TestExplainListLimitCountsExistingCheckpoints(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	files := map[string]string{}
	for i := range 100 {
		for p, c := range oneSessionCheckpoint(fmt.Sprintf("a0000000%04d", i), "", "", "") {
			files[p] = c
		}
	}
	e2etest.AddMetadata(t, dir, files)
	var messages []string
	for i := range 100 {
		messages = append(messages, fmt.Sprintf("existing %d\n\nEntire-Checkpoint: a0000000%04d", i, i))
	}
	for i := range 12 {
		messages = append(messages, fmt.Sprintf("missing %d\n\nEntire-Checkpoint: b0000000%04d", i, i))
	}
	gittest.EmptyCommits(t, dir, messages...)
	out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "explain", "--no-pager")
	if code != 0 {
		t.Fatalf("explain: %d %s", code, errOut)
	}
	if !strings.Contains(out, "Checkpoints: 100\n") || !strings.Contains(out, "[a00000000000]") || !strings.Contains(out, "[a00000000099]") || strings.Contains(out, "[b0000000") {
		t.Errorf("list:\n%s", out)
	}
}

// Token usage is "not recorded" only when no metadata records any; a
// legacy transcript_lines_at_start past the end of the transcript shows the
// whole transcript.
func TestExplainTokensAndLegacyScope(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	transcript := `{"type":"user","uuid":"u1","message":{"role":"user","content":"Legacy prompt"}}
{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Legacy answer"}]}}
`
	cases := []struct {
		id, fields, rootUsage string
		want                  []string
	}{
		{"c00000000001", `,"transcript_lines_at_start":40`, "",
			[]string{"Tokens: not recorded\n", "Transcript (checkpoint scope):\n[User] Legacy prompt\n\n[Assistant] Legacy answer\n"}},
		{"c00000000002", `,"token_usage":{"input_tokens":0,"cache_creation_tokens":0,"cache_read_tokens":0,"output_tokens":0,"api_call_count":0}`, "",
			[]string{"Tokens: 0 (input 0, cache write 0, cache read 0, output 0; 0 API calls)\n"}},
		{"c00000000003", `,"token_usage":{"input_tokens":7,"output_tokens":3,"api_call_count":1}`, `{"input_tokens":0,"output_tokens":0,"api_call_count":0}`,
			[]string{"Tokens: 10 (input 7, cache write 0, cache read 0, output 3; 1 API calls)\n"}},
		{"c00000000004", `,"checkpoint_transcript_start":2,"transcript_lines_at_start":2`, "",
			[]string{"Transcript (checkpoint scope):\n(empty)\n"}},
	}
	files := map[string]string{}
	for _, c := range cases {
		for p, b := range oneSessionCheckpoint(c.id, c.fields, transcript, c.rootUsage) {
			files[p] = b
		}
	}
	e2etest.AddMetadata(t, dir, files)
	for _, c := range cases {
		out, errOut, code := e2etest.RunEntire(t, dir, nil, "", "explain", "-c", c.id, "--no-pager")
		for _, w := range c.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%s lacks %q: %d %s\n%s", c.id, w, code, errOut, out)
			}
		}
	}
}
