package agenttest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	_ "github.com/entirecli/entire/agent/all" // the built-in agents beside it
	"github.com/entirecli/entire/checkpoint/condensed"
)

const syntheticSession = `{"synthetic_session":"s1"}
{"seq":1,"from":"human","words":"make a.txt"}
{"seq":2,"from":"bot","call":{"fn":"put","target":"a.txt"}}
{"seq":3,"meter":{"in":10,"out":3}}
{"seq":4,"from":"bot","words":"made it","at":"2026-12-01T10:00:00Z"}
{"seq":5,"from":"human","words":"thanks"}
{"seq":6,"from":"bot","words":"welcome"}
`

func syntheticFixture(t *testing.T) agenttest.Fixture {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(file, []byte(syntheticSession), 0o600); err != nil {
		t.Fatal(err)
	}
	return agenttest.Fixture{
		NewWithEnv: func(env map[string]string, home string) agent.Agent {
			a := &agenttest.Synthetic{}
			a.Getenv = func(k string) string { return env[k] }
			a.UserHomeDir = func() (string, error) { return home, nil }
			return a
		},
		SessionDirEnv: agenttest.SyntheticSessionDirEnv,
		StorageDir:    ".synthetic",
		Session: agenttest.SessionCase{
			ID: "s1", Data: []byte(syntheticSession), LastPrompt: "thanks", LastAssistant: "welcome",
			ModifiedFiles: []string{"a.txt"}, FileName: "s1.jsonl",
		},
		TranscriptFiles: []string{file},
	}
}

// The conformance suite runs on an agent whose transcripts match no
// built-in agent's shape and have no uuid-keyed entries.
func TestSyntheticConformance(t *testing.T) {
	agenttest.RegisterSynthetic()
	t.Parallel()
	agenttest.Run(t, syntheticFixture(t))
}

// The condensed transcript (and so explain) reads the synthetic agent's
// transcript by asking it, found by its content or its label.
func TestSyntheticCondensed(t *testing.T) {
	agenttest.RegisterSynthetic()
	t.Parallel()
	want := []condensed.Entry{
		{Role: condensed.RoleUser, Text: "make a.txt"},
		{Role: condensed.RoleTool, Tool: "put", Text: "a.txt"},
		{Role: condensed.RoleAssistant, Text: "made it"},
		{Role: condensed.RoleUser, Text: "thanks"},
		{Role: condensed.RoleAssistant, Text: "welcome"},
	}
	got, err := condensed.ParseTranscript(nil, []byte(syntheticSession), 0)
	if err != nil || len(got) != len(want) {
		t.Fatalf("ParseTranscript = %+v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Lines fed from the middle: the label tells the agent.
	p := condensed.LineParser{Label: agenttest.SyntheticType, First: 4}
	var recs []condensed.Record
	recs = p.Line([]byte(`{"seq":5,"from":"human","words":"thanks"}`), recs)
	if e := condensed.Entries(recs, 0); len(e) != 1 || e[0].Text != "thanks" {
		t.Errorf("label-read entries %+v", e)
	}
}

// An agent without a ConversationReader of its own reads as a
// conversation through its entries (the local web view).
func TestSyntheticConversation(t *testing.T) {
	agenttest.RegisterSynthetic()
	t.Parallel()
	cr, ok := agent.ConversationOf(&agenttest.Synthetic{})
	if !ok {
		t.Fatal("no conversation for a TranscriptReader")
	}
	var got []string
	err := cr.ReadConversation(strings.NewReader(syntheticSession), 6, func(m agent.Message) bool {
		s := m.Role + ":" + m.Text
		for _, c := range m.Calls {
			s += "call " + c.Name + " " + string(c.Input)
		}
		if m.Cut > 0 {
			s += fmt.Sprintf(" (cut %d)", m.Cut)
		}
		got = append(got, s)
		return len(got) < 4
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user:make a (cut 4)", `assistant:call put {"detail":"a.txt","files":["a.txt"]}`, "assistant:made i (cut 1)", "user:thanks"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("conversation:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
