//go:build torture

package torture

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// Undo data lives outside git's refs and objects, so `git gc --prune=now`
// cannot take it: an undo after it restores, byte for byte, files git never
// saw (edits after the last turn, an executable bit, a symbolic link, a
// deleted file) and transcript lines no step stored.
func TestUndoSurvivesGC(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Sh(`printf 'one\n' > mod.txt; printf 'gone\n' > del.txt; git add -A; git commit -q -m files`)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.TurnWith("turn one: modify", map[string]string{"mod.txt": "two\n"}, nil)
	r.TurnWith("turn two: more", map[string]string{"mod.txt": "three\n", "new.txt": "new\n"}, nil)
	// After the last turn, by hand: nothing of this is in git.
	r.Sh(`printf 'hand edit, never stored\n' > mod.txt; printf 'mine\n' > new.txt; chmod +x new.txt; ln -s mod.txt link; rm del.txt`)
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "late", "message": map[string]any{"role": "user", "content": "late line " + e2etest.FakeToken(2)}})
	before := e2etest.Snapshot(t, r.Dir)
	transcript, _ := os.ReadFile(r.Transcript)

	if _, errOut, code := r.Entire("rewind", "--to", e2etest.PointOfTurn(t, r.Points(), 1).ID); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	if refs := gittest.Git(t, r.Dir, "for-each-ref", "--format=%(refname)", "refs/entire/"); refs != "" {
		t.Fatalf("the undo point is a ref:\n%s", refs)
	}
	if len(e2etest.UndoPoints(t, r.Dir)) != 1 {
		t.Fatalf("no undo point in %s", e2etest.UndoStoreDir(t, r.Dir))
	}
	gittest.Git(t, r.Dir, "reflog", "expire", "--expire=now", "--all")
	gittest.Git(t, r.Dir, "gc", "-q", "--prune=now")

	if _, errOut, code := r.Entire("rewind", "--undo"); code != 0 {
		t.Fatalf("undo after gc: %s", errOut)
	}
	if d := e2etest.DiffStates(before, e2etest.Snapshot(t, r.Dir)); d != "" {
		t.Errorf("after gc and undo the work tree differs:\n%s", d)
	}
	if got, _ := os.ReadFile(r.Transcript); !bytes.Equal(got, transcript) {
		t.Errorf("after gc and undo the transcript has %d bytes, want %d", len(got), len(transcript))
	}
	gittest.Fsck(t, r.Dir)
}

// An undo point keeps only what the rewind removes: rewinding a long
// transcript back one turn saves the cut tail, not the transcript.
func TestUndoStoresOnlyTheCutTail(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	// A long first turn: about 2 MB of words that compress poorly.
	rng := rand.New(rand.NewSource(3))
	var lines []map[string]any
	for i := 0; i < 1000; i++ {
		var text strings.Builder
		for text.Len() < 2000 {
			w := make([]byte, 3+rng.Intn(6))
			for k := range w {
				w[k] = byte('a' + rng.Intn(26))
			}
			text.Write(w)
			text.WriteByte(' ')
		}
		lines = append(lines, map[string]any{"type": "assistant", "uuid": fmt.Sprintf("long%d", i), "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text.String()}}}})
	}
	r.TurnWith("turn one: long", map[string]string{"a.txt": "a\n"}, func() { r.AppendTranscript(lines...) })
	r.TurnWith("turn two: short", map[string]string{"a.txt": "a2\n"}, nil)
	transcript, _ := os.ReadFile(r.Transcript)
	if len(transcript) < 2<<20 {
		t.Fatalf("transcript of %d bytes", len(transcript))
	}
	if _, errOut, code := r.Entire("rewind", "--to", e2etest.PointOfTurn(t, r.Points(), 1).ID); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	cut, _ := os.ReadFile(r.Transcript)
	tail := len(transcript) - len(cut)
	if !bytes.HasPrefix(transcript, cut) || tail <= 0 || tail > 4096 {
		t.Fatalf("the rewind cut %d bytes", tail)
	}
	points := e2etest.UndoPoints(t, r.Dir)
	if len(points) != 1 {
		t.Fatalf("undo points: %v", points)
	}
	var size int64
	filepath.Walk(filepath.Join(e2etest.UndoStoreDir(t, r.Dir), points[0]), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return nil
	})
	t.Logf("undo point: %d bytes for a cut tail of %d bytes of a %d-byte transcript", size, tail, len(transcript))
	if size == 0 || size > 16<<10 {
		t.Errorf("the undo point takes %d bytes for a cut tail of %d bytes of a %d-byte transcript", size, tail, len(transcript))
	}
	if _, errOut, code := r.Entire("rewind", "--undo"); code != 0 {
		t.Fatalf("undo: %s", errOut)
	}
	if got, _ := os.ReadFile(r.Transcript); !bytes.Equal(got, transcript) {
		t.Errorf("undo restored %d bytes, want %d", len(got), len(transcript))
	}
}

// An undo that needs an object git lost says which object it was reading
// and for what, not only go-git's "object not found".
func TestUndoMissingObjectNamesWhatWasRead(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.AgentTurn("first turn", map[string]string{"a.txt": "a\n"})
	r.AgentTurn("second turn", map[string]string{"b.txt": "b\n"})
	if _, errOut, code := r.Entire("rewind", "--to", e2etest.PointOfMessage(t, r.Points(), "first turn").ID); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	head := gittest.Git(t, r.Dir, "rev-parse", "HEAD")
	tree := gittest.Git(t, r.Dir, "rev-parse", "HEAD^{tree}")
	if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", tree[:2], tree[2:])); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := r.Entire("rewind", "--undo")
	if code == 0 {
		t.Fatalf("undo without HEAD's tree succeeded: %s", errOut)
	}
	for _, want := range []string{"undo point", "HEAD commit " + head[:12], "tree " + tree[:12], "object not found"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not name %q", errOut, want)
		}
	}
}
