package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

var fixedNow = func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }

func openRepo(t testing.TB, dir string) *gitrepo.Repo {
	t.Helper()
	r, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// jsonlOf makes n transcript lines of about size bytes each.
func jsonlOf(n, size, from int) []byte {
	var b bytes.Buffer
	pad := strings.Repeat("x", size)
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, `{"type":"user","uuid":"u-%d","message":{"content":"%s"}}`+"\n", i, pad)
	}
	return b.Bytes()
}

func TestWriteAndReadCheckpointWithThreeSessions(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo := openRepo(t, dir)
	store := NewStore(repo, fixedNow)
	ctx := context.Background()
	if created, err := store.EnsureBranch(ctx); err != nil || !created {
		t.Fatalf("EnsureBranch = %v, %v", created, err)
	}
	if created, err := store.EnsureBranch(ctx); err != nil || created {
		t.Fatalf("second EnsureBranch = %v, %v", created, err)
	}

	id := ID("a3b2c4d5e6f7")
	// Session 1 has a transcript larger than one 4 MB chunk.
	big := jsonlOf(9000, 1000, 0)
	var transcripts [][]byte
	for i := 0; i < 3; i++ {
		content := jsonlOf(5, 50, i*100)
		if i == 1 {
			content = big
		}
		transcripts = append(transcripts, content)
		ts, err := AppendJSONL(repo, nil, content)
		if err != nil {
			t.Fatal(err)
		}
		slot, err := store.WriteSession(ctx, id, SessionWrite{
			Metadata: SessionMetadata{
				SessionID: fmt.Sprintf("session-%d", i), Strategy: StrategyManualCommit, Branch: "main",
				CheckpointsCount: i + 1, FilesTouched: []string{fmt.Sprintf("f%d.go", i), "shared.go"},
				Agent: agent.AgentTypeClaudeCode, TokenUsage: &agent.TokenUsage{InputTokens: 10, OutputTokens: i, APICallCount: 1},
			},
			Transcript: ts,
			Prompts:    fmt.Sprintf("prompt %d\n\n---\n\nsecond", i),
			Context:    "# Session Context\n",
		}, CommitInfo{EphemeralBranch: "entire/abc1234-e3b0c4"})
		if err != nil {
			t.Fatal(err)
		}
		if slot != i {
			t.Fatalf("session %d went to slot %d", i, slot)
		}
	}
	if len(transcripts[1]) <= agent.StoreChunkSize {
		t.Fatal("test transcript should need several chunks")
	}

	cp, err := store.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Sessions) != 3 {
		t.Fatalf("read %d sessions", len(cp.Sessions))
	}
	for i, s := range cp.Sessions {
		got, err := s.Transcript()
		if err != nil {
			t.Fatal(err)
		}
		if want := transcripts[i]; !bytes.Equal(got, want) {
			t.Errorf("session %d transcript differs (%d vs %d bytes)", i, len(got), len(want))
		}
		if p := s.Prompts(); len(p) != 2 || p[0] != fmt.Sprintf("prompt %d", i) {
			t.Errorf("prompts %q", p)
		}
	}
	if n := len(cp.Sessions[1].StoredTranscript().Chunks); n < 3 {
		t.Errorf("big transcript stored in %d chunks", n)
	}
	r := cp.Root
	if r.CheckpointsCount != 6 || !reflect.DeepEqual(r.FilesTouched, []string{"f0.go", "f1.go", "f2.go", "shared.go"}) ||
		r.TokenUsage == nil || r.TokenUsage.InputTokens != 30 || r.TokenUsage.OutputTokens != 3 || len(r.Sessions) != 3 {
		t.Errorf("root metadata %+v", r)
	}
	if r.Sessions[2].Transcript != "/a3/b2c4d5e6f7/2/full.jsonl" || r.Sessions[0].Prompt != "/a3/b2c4d5e6f7/0/prompt.txt" {
		t.Errorf("session paths %+v", r.Sessions)
	}

	// Rewriting a session replaces its slot.
	ts, _ := AppendJSONL(repo, nil, []byte("{}\n"))
	slot, err := store.WriteSession(ctx, id, SessionWrite{Metadata: SessionMetadata{SessionID: "session-0", Strategy: StrategyManualCommit}, Transcript: ts}, CommitInfo{})
	if err != nil || slot != 0 {
		t.Fatalf("rewrite slot = %d, %v", slot, err)
	}
	if out := gittest.Git(t, dir, "ls-tree", "--name-only", "entire/checkpoints/v1:a3/b2c4d5e6f7/0"); out != "content_hash.txt\nfull.jsonl\nmetadata.json" {
		t.Errorf("rewritten slot holds %q", out)
	}

	// Plain git reads what was written.
	log := gittest.Git(t, dir, "log", "--format=%s", "entire/checkpoints/v1")
	if !strings.HasPrefix(log, "Checkpoint: a3b2c4d5e6f7\n") || !strings.HasSuffix(log, "Initialize metadata branch") {
		t.Errorf("git log:\n%s", log)
	}
	body := gittest.Git(t, dir, "log", "-1", "--skip=1", "--format=%B", "entire/checkpoints/v1")
	if !strings.Contains(body, "Entire-Session: session-2\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\nEphemeral-branch: entire/abc1234-e3b0c4") {
		t.Errorf("commit message:\n%s", body)
	}
	hash := gittest.Git(t, dir, "show", "entire/checkpoints/v1:a3/b2c4d5e6f7/1/content_hash.txt")
	if !strings.HasPrefix(hash, "sha256:") || len(hash) != 71 {
		t.Errorf("content hash %q", hash)
	}
	gittest.Fsck(t, dir)

	ids, err := store.List()
	if err != nil || !reflect.DeepEqual(ids, []ID{id}) {
		t.Errorf("List = %v, %v", ids, err)
	}
}

func TestSessionMetadataKeys(t *testing.T) {
	t.Parallel()
	full := SessionMetadata{
		CLIVersion: "v", CheckpointID: "a3b2c4d5e6f7", SessionID: "s", Strategy: "manual-commit", CreatedAt: fixedNow(),
		Branch: "b", CheckpointsCount: 1, FilesTouched: []string{"a"}, Agent: "Claude Code", TurnID: "t", IsTask: true,
		ToolUseID: "toolu", TranscriptIdentifierAtStart: "u", CheckpointTranscriptStart: 3, TranscriptLinesAtStart: 3,
		TokenUsage: &agent.TokenUsage{}, Summary: &Summary{}, InitialAttribution: &Attribution{}, TranscriptPath: ".claude/x.jsonl",
	}
	want := []string{"cli_version", "checkpoint_id", "session_id", "strategy", "created_at", "branch", "checkpoints_count",
		"files_touched", "agent", "turn_id", "is_task", "tool_use_id", "transcript_identifier_at_start",
		"checkpoint_transcript_start", "transcript_lines_at_start", "token_usage", "summary", "initial_attribution", "transcript_path"}
	if got := jsonKeys(t, full); !reflect.DeepEqual(got, want) {
		t.Errorf("session keys\n got %v\nwant %v", got, want)
	}
	minimal := SessionMetadata{CheckpointID: "a3b2c4d5e6f7", SessionID: "s", Strategy: "manual-commit", FilesTouched: []string{}}
	if got := jsonKeys(t, minimal); !reflect.DeepEqual(got, []string{"checkpoint_id", "session_id", "strategy", "created_at", "checkpoints_count", "files_touched"}) {
		t.Errorf("minimal session keys %v", got)
	}
	root := RootMetadata{CLIVersion: "v", CheckpointID: "a3b2c4d5e6f7", Strategy: "s", Branch: "b", Sessions: []SessionPaths{{}}, TokenUsage: &agent.TokenUsage{}}
	if got := jsonKeys(t, root); !reflect.DeepEqual(got, []string{"cli_version", "checkpoint_id", "strategy", "branch", "checkpoints_count", "files_touched", "sessions", "token_usage"}) {
		t.Errorf("root keys %v", got)
	}
	if got := jsonKeys(t, SessionPaths{}); !reflect.DeepEqual(got, []string{"metadata", "transcript", "context", "content_hash", "prompt"}) {
		t.Errorf("session path keys %v", got)
	}
	if got := jsonKeys(t, Attribution{}); !reflect.DeepEqual(got, []string{"calculated_at", "agent_lines", "human_added", "human_modified", "human_removed", "total_committed", "agent_percentage"}) {
		t.Errorf("attribution keys %v", got)
	}
}

// jsonKeys returns the top-level keys of v's JSON encoding in order.
func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var keys []string
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return keys
}

func TestReadFixtureMetadata(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../shared/fixtures/transcripts/*/*-metadata.json")
	if len(files) == 0 {
		t.Skip("fixtures not found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m SessionMetadata
		if err := json.Unmarshal(data, &m); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if !m.CheckpointID.Valid() || m.SessionID == "" {
			t.Errorf("%s: decoded %+v", f, m)
		}
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo := openRepo(t, dir)
	store := NewStore(repo, fixedNow)
	if _, err := store.Read("a3b2c4d5e6f7"); !errors.Is(err, ErrNotFound) {
		t.Errorf("no branch: %v", err)
	}
	if _, err := store.Read("nothex"); !errors.Is(err, ErrInvalidID) {
		t.Errorf("bad id: %v", err)
	}
	ctx := context.Background()
	id := ID("0123456789ab")
	if _, err := store.WriteSession(ctx, id, SessionWrite{Metadata: SessionMetadata{SessionID: "s", Strategy: StrategyManualCommit}}, CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Read("0123456789ac"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	// Corrupt the session metadata with plain git and read again.
	gittest.Git(t, dir, "checkout", "-q", "entire/checkpoints/v1")
	gittest.WriteFile(t, dir, "01/23456789ab/0/metadata.json", "{not json")
	gittest.Git(t, dir, "commit", "-qam", "corrupt")
	gittest.Git(t, dir, "checkout", "-q", "main")
	_, err := store.Read(id)
	if err == nil || !strings.Contains(err.Error(), "corrupt metadata.json") || strings.Contains(err.Error(), "\n") {
		t.Errorf("corrupt metadata: %v", err)
	}
}

func TestReadFallsBackToOrigin(t *testing.T) {
	t.Parallel()
	src := gittest.InitWithCommit(t)
	srcStore := NewStore(openRepo(t, src), fixedNow)
	ctx := context.Background()
	if _, err := srcStore.WriteSession(ctx, "0123456789ab", SessionWrite{Metadata: SessionMetadata{SessionID: "s", Strategy: StrategyManualCommit}}, CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	gittest.Git(t, src, "clone", "-q", "--no-local", src, clone)
	store := NewStore(openRepo(t, clone), fixedNow)
	if !store.Exists("0123456789ab") {
		t.Fatal("checkpoint on origin/entire/checkpoints/v1 not found")
	}
	// A write in the clone builds on origin's history.
	if _, err := store.WriteSession(ctx, "0123456789ac", SessionWrite{Metadata: SessionMetadata{SessionID: "s2", Strategy: StrategyManualCommit}}, CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	ids, _ := store.List()
	if len(ids) != 2 {
		t.Errorf("after local write: %v", ids)
	}
	gittest.Fsck(t, clone)
}

// A pinned store reads the metadata branch as it was when pinned: no
// branch then is no checkpoint; later writes are seen by the store it came
// from and by a new pin, not by the old one.
func TestPinnedStore(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	store := NewStore(openRepo(t, dir), fixedNow)
	ctx := context.Background()
	write := func(id ID) {
		t.Helper()
		if _, err := store.WriteSession(ctx, id, SessionWrite{Metadata: SessionMetadata{SessionID: "s-" + string(id), Strategy: StrategyManualCommit}}, CommitInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	empty, err := store.Pinned()
	if err != nil {
		t.Fatal(err)
	}
	write("0123456789ab")
	if _, err := empty.Read("0123456789ab"); !errors.Is(err, ErrNotFound) {
		t.Errorf("pinned before the branch existed: %v", err)
	}
	pinned, err := store.Pinned()
	if err != nil {
		t.Fatal(err)
	}
	write("a3b2c4d5e6f7")
	if cp, err := pinned.Read("0123456789ab"); err != nil || cp.Sessions[0].Metadata.SessionID != "s-0123456789ab" {
		t.Errorf("pinned read: %v, %v", cp, err)
	}
	if pinned.Exists("a3b2c4d5e6f7") {
		t.Error("a pinned store sees a checkpoint written after the pin")
	}
	if !store.Exists("a3b2c4d5e6f7") {
		t.Error("the store does not see its own write")
	}
	if again, err := store.Pinned(); err != nil || !again.Exists("a3b2c4d5e6f7") {
		t.Errorf("a new pin does not see the write: %v", err)
	}
}
