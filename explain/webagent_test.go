package explain

import (
	"context"
	"testing"

	"github.com/entirecli/entire/agent"
	_ "github.com/entirecli/entire/agent/all"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// The web view reads a session's conversation as the agent that wrote it,
// told from the content before the label: Entire 0.4.x labelled Claude
// Code JSONL "Gemini CLI".
func TestReadConversationTrustsContentOverLabel(t *testing.T) {
	t.Parallel()
	repo, err := gitrepo.Open(gittest.InitWithCommit(t), gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	lines := []byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":"Fix the parser"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Fixed."}]}}` + "\n")
	ts, err := checkpoint.AppendJSONL(repo, nil, lines)
	if err != nil {
		t.Fatal(err)
	}
	store := checkpoint.NewStore(repo, nil)
	id := checkpoint.ID("3c4d5e6f7a8b")
	w := checkpoint.SessionWrite{Metadata: checkpoint.SessionMetadata{SessionID: "s1", Strategy: checkpoint.StrategyManualCommit, Agent: agent.AgentTypeGemini}, Transcript: ts}
	if _, err := store.WriteSession(context.Background(), id, w, checkpoint.CommitInfo{}); err != nil {
		t.Fatal(err)
	}
	cp, err := store.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	l := &Loader{Repo: repo, Store: store}
	conv, err := l.ReadConversation(cp.Sessions[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(conv.Turns) != 1 || len(conv.Turns[0].Items) == 0 {
		t.Fatalf("the mislabelled Claude Code transcript read as %d turns: %+v", len(conv.Turns), conv)
	}
}
