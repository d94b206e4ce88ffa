package commits

import (
	"encoding/json"
	"testing"

	"github.com/entirecli/entire/checkpoint/condensed"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// explainedAlikeWithoutSummary checks that checkpoint id has a
// condensed.json with entries and that explain shows the same from it as
// from the stored transcript (the checkpoint with a stale condensed.json,
// which explain ignores), and returns what it showed.
func explainedAlikeWithoutSummary(t *testing.T, r *e2etest.SessionRepo, id string) string {
	t.Helper()
	raw := gittest.Git(t, r.Dir, "cat-file", "blob", e2etest.CpPath(id, "0/"+condensed.File))
	var c condensed.Summary
	if err := json.Unmarshal([]byte(raw), &c); err != nil || len(c.Entries) == 0 {
		t.Fatalf("%s of %s: %v %.200q", condensed.File, id, err, raw)
	}
	view, errOut, code := r.Entire("explain", "--checkpoint", id, "--no-pager")
	if code != 0 {
		t.Fatalf("explain: %d %s", code, errOut)
	}
	c.ContentHash = "sha256:stale"
	stale, _ := json.Marshal(c)
	e2etest.AddMetadata(t, r.Dir, map[string]string{id[:2] + "/" + id[2:] + "/0/" + condensed.File: string(stale)})
	again, errOut, code := r.Entire("explain", "--checkpoint", id, "--no-pager")
	if code != 0 {
		t.Fatalf("explain: %d %s", code, errOut)
	}
	if again != view {
		t.Errorf("checkpoint %s explained from condensed.json:\n%s\nfrom the transcript:\n%s", id, view, again)
	}
	return view
}
