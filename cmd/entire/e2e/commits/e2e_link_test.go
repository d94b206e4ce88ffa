package commits

import (
	"crypto/sha256"
	"encoding/hex"
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// The agent's own commit (no terminal, session active) of a new file is
// linked when the file is the agent's: written in this turn, or as the
// shadow tree holds it; not when the file is one the agent wrote in an
// earlier turn and someone rewrote since.
func TestE2EAgentCommitNewFileByContent(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write notes", map[string]string{"notes.txt": "agent notes\n"})
	gittest.WriteFile(t, r.Dir, "notes.txt", "rewritten by hand\n")
	r.StartTurn(r.Dir, "Commit what is there")
	r.MustGit("add", "notes.txt")
	r.MustGit("commit", "-q", "-m", "Notes")
	if id := e2etest.CheckpointAt(t, r.Dir, "HEAD"); id != "" {
		t.Errorf("agent commit of a file rewritten by hand linked to %s", id)
	}
	r.WriteFiles(map[string]string{"fresh.txt": "fresh\n"})
	r.MustGit("add", "fresh.txt")
	r.MustGit("commit", "-q", "-m", "Fresh")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("agent commit of the file it wrote in this turn not linked")
	}
	r.EndTurn(r.Dir, "Committed")
	e2etest.AssertStoreClean(t, r.Dir, id)
}

// The user commits part of the agent's files in the middle of its first
// turn, before any Stop (no shadow branch yet): the files left out stay
// pending, and committing them later, still in the turn, is linked to a
// checkpoint of its own.
func TestE2ECarryForwardBeforeFirstStop(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.StartTurn(r.Dir, "Write two files")
	r.WriteFiles(map[string]string{"one.txt": "1\n", "two.txt": "2\n"})
	r.MustGit("add", "one.txt")
	r.MustGit("commit", "-q", "-m", "One")
	id1 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id1 == "" {
		t.Fatal("first commit not linked")
	}
	if ft := e2etest.AnyStrings(e2etest.SessionState(t, r.Dir, "sess-1")["files_touched"]); strings.Join(ft, ",") != "two.txt" {
		t.Errorf("files_touched after the partial commit %v, want [two.txt]", ft)
	}
	r.MustGit("add", "two.txt")
	r.MustGit("commit", "-q", "-m", "Two")
	id2 := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id2 == "" || id2 == id1 {
		t.Fatalf("second commit checkpoint %q (first %s)", id2, id1)
	}
	m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id2, "0/metadata.json"))
	if ft := e2etest.AnyStrings(m["files_touched"]); strings.Join(ft, ",") != "two.txt" || m["session_id"] != "sess-1" {
		t.Errorf("second checkpoint: session %v files %v", m["session_id"], ft)
	}
	if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id2, "0/prompt.txt")); p != "Write two files" {
		t.Errorf("second checkpoint prompt.txt %q", p)
	}
	r.EndTurn(r.Dir, "Both committed")
	if b := e2etest.ShadowBranches(t, r.Dir); len(b) != 0 {
		t.Errorf("shadow branches left: %v", b)
	}
	e2etest.AssertStoreClean(t, r.Dir, id1, id2)
}

// content_hash.txt is "sha256:<hex>" of exactly the stored transcript: its
// chunks joined with "\n", as a 0.4.x reader checks it.
func TestE2EContentHashOfStoredChunks(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("Write one", map[string]string{"one.txt": "1\n"})
	r.MustGit("add", "one.txt")
	r.MustGit("commit", "-q", "-m", "One")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	if id == "" {
		t.Fatal("commit not linked")
	}
	var chunks []string
	for _, name := range strings.Fields(gittest.Git(t, r.Dir, "ls-tree", "--name-only", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/0/")) {
		if strings.HasPrefix(name, "full.jsonl") {
			chunks = append(chunks, name)
		}
	}
	if len(chunks) == 0 {
		t.Fatal("no stored transcript")
	}
	var joined []byte
	for i, name := range chunks {
		b, err := exec.Command("git", "-C", r.Dir, "cat-file", "blob", e2etest.CpPath(id, "0/"+name)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			joined = append(joined, '\n')
		}
		joined = append(joined, b...)
	}
	sum := sha256.Sum256(joined)
	want := "sha256:" + hex.EncodeToString(sum[:])
	got, err := exec.Command("git", "-C", r.Dir, "cat-file", "blob", e2etest.CpPath(id, "0/content_hash.txt")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("content_hash.txt %q, want %q (sha256 of the %d stored bytes)", got, want, len(joined))
	}
}
