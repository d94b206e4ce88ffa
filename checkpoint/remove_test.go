package checkpoint

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// RemoveOrphaned deletes the named checkpoints in one commit by Entire CLI
// dated like its parent, and writes nothing when none of them is there.
func TestRemoveOrphaned(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		remove     []ID
		wantLeft   []ID
		wantCommit bool
	}{
		{name: "two of three", remove: []ID{"aa0000000001", "bb0000000002"}, wantLeft: []ID{"cc0000000003"}, wantCommit: true},
		{name: "all", remove: []ID{"aa0000000001", "bb0000000002", "cc0000000003"}, wantCommit: true},
		{name: "unknown only", remove: []ID{"dd0000000004"}, wantLeft: []ID{"aa0000000001", "bb0000000002", "cc0000000003"}},
		{name: "none", wantLeft: []ID{"aa0000000001", "bb0000000002", "cc0000000003"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			repo := openRepo(t, dir)
			store := NewStore(repo, fixedNow)
			ctx := context.Background()
			for _, id := range []ID{"aa0000000001", "bb0000000002", "cc0000000003"} {
				ts, err := AppendJSONL(repo, nil, []byte("{}\n"))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := store.WriteSession(ctx, id, SessionWrite{Metadata: SessionMetadata{SessionID: "s-" + string(id), Strategy: StrategyAutoCommit}, Transcript: ts}, CommitInfo{}); err != nil {
					t.Fatal(err)
				}
			}
			before := gittest.Git(t, dir, "rev-parse", "entire/checkpoints/v1")
			// A later clock: the removal keeps its parent's dates.
			later := NewStore(repo, func() time.Time { return fixedNow().Add(time.Hour) })
			if err := later.RemoveOrphaned(ctx, tc.remove); err != nil {
				t.Fatalf("RemoveOrphaned: %v", err)
			}
			left, err := store.List()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(idStrings(left), ",") != strings.Join(idStrings(tc.wantLeft), ",") {
				t.Errorf("left %v, want %v", left, tc.wantLeft)
			}
			after := gittest.Git(t, dir, "rev-parse", "entire/checkpoints/v1")
			if !tc.wantCommit {
				if after != before {
					t.Errorf("a commit was written for nothing to remove")
				}
				return
			}
			if parent := gittest.Git(t, dir, "rev-parse", "entire/checkpoints/v1^"); parent != before {
				t.Errorf("the removal is not one commit on the old tip: parent %s, old tip %s", parent, before)
			}
			got := gittest.Git(t, dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%ad|%cd|%B", "--date=raw", "entire/checkpoints/v1")
			pd := gittest.Git(t, dir, "log", "-1", "--format=%ad|%cd", "--date=raw", before)
			want := "Entire CLI <cli@entire.io>|Entire CLI <cli@entire.io>|" + pd + "|Cleanup: removed " + strconv.Itoa(len(tc.remove)) + " orphaned checkpoints"
			if got != want {
				t.Errorf("commit:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// A repository without the metadata branch gets none.
func TestRemoveOrphanedWithoutBranch(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	store := NewStore(openRepo(t, dir), fixedNow)
	if err := store.RemoveOrphaned(context.Background(), []ID{"aa0000000001"}); err != nil {
		t.Fatal(err)
	}
	if out := gittest.Git(t, dir, "branch", "--list", "entire/*"); out != "" {
		t.Errorf("branches after removal: %q", out)
	}
}

func idStrings(ids []ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}
