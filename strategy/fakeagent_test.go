package strategy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/internal/settings"
)

// fakeAgent is the agent of the ManualCommit tests: it knows no real
// client. Its transcript is JSONL, one event a line:
//
//	{"p": "prompt"}            a prompt
//	{"w": "path"}              a file the agent wrote (a Write tool call)
//	{"a": "answer"}            an assistant answer
//	{"in": 10, "out": 3}       one API call's token usage
//
// It embeds agent.Agent (nil), so that a method the strategy should not
// need panics in the test that calls it.
type fakeAgent struct{ agent.Agent }

const (
	fakeAgentName agent.AgentName = "strategy-test-agent"
	fakeAgentType agent.AgentType = "Strategy Test Agent"
)

// The strategy finds a session's agent by its type at commit time.
func init() { agent.Register(fakeAgentName, func() agent.Agent { return fakeAgent{} }) }

func (fakeAgent) Name() agent.AgentName { return fakeAgentName }
func (fakeAgent) Type() agent.AgentType { return fakeAgentType }

// fakeLine is one event of a fake transcript.
type fakeLine struct {
	Prompt string `json:"p,omitempty"`
	Write  string `json:"w,omitempty"`
	Answer string `json:"a,omitempty"`
	In     int    `json:"in,omitempty"`
	Out    int    `json:"out,omitempty"`
}

// ScanTranscript analyses the complete lines from `from` on; a position
// past the end of the file (a transcript cut back) restarts at the start.
func (fakeAgent) ScanTranscript(path string, from agent.Position) (*agent.Analysis, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if from.Offset > int64(len(data)) {
		from = agent.Position{}
	}
	a := &agent.Analysis{From: from, To: from}
	rest := data[from.Offset:]
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		var l fakeLine
		if json.Unmarshal(rest[:i], &l) == nil {
			switch {
			case l.Prompt != "":
				a.Prompts = append(a.Prompts, l.Prompt)
			case l.Write != "":
				a.ModifiedFiles = append(a.ModifiedFiles, l.Write)
				a.ToolUses = append(a.ToolUses, agent.ToolUse{Name: "Write", Detail: l.Write})
			case l.Answer != "":
				a.LastAssistant = l.Answer
			case l.In != 0 || l.Out != 0:
				a.Tokens.InputTokens += l.In
				a.Tokens.OutputTokens += l.Out
				a.Tokens.APICallCount++
			}
		}
		a.To.Entries++
		a.To.Offset += int64(i + 1)
		rest = rest[i+1:]
	}
	return a, nil
}

// mcRepo drives ManualCommit over a fresh repository (one commit,
// README.md) the way the hooks do, with the fake agent.
type mcRepo struct {
	t    *testing.T
	env  *Env
	m    *ManualCommit
	dir  string
	logs *bytes.Buffer
	now  time.Time
	// transcripts are the sessions' transcript files.
	transcripts map[string]string
}

func newMCRepo(t *testing.T) *mcRepo {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	r := &mcRepo{t: t, dir: dir, logs: &bytes.Buffer{}, now: time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC),
		transcripts: map[string]string{}}
	r.env = &Env{
		Repo: repo, Sessions: session.NewStore(session.Options{GitCommonDir: repo.CommonDir}),
		Settings: settings.Defaults(), Redactor: NoRedaction{}, Log: slog.New(slog.NewTextHandler(r.logs, nil)),
		Stderr: &bytes.Buffer{}, Now: r.clock, Getenv: func(string) string { return "" }, CLIVersion: "test",
	}
	r.m = NewManualCommit(r.env)
	return r
}

// clock moves a second at every reading.
func (r *mcRepo) clock() time.Time {
	r.now = r.now.Add(time.Second)
	return r.now
}

func (r *mcRepo) input(sessionID, prompt string) TurnInput {
	path, ok := r.transcripts[sessionID]
	if !ok {
		path = filepath.Join(r.t.TempDir(), sessionID+".jsonl")
		r.transcripts[sessionID] = path
	}
	return TurnInput{Agent: fakeAgent{}, SessionID: sessionID, TranscriptPath: path, Prompt: prompt}
}

// write writes files of the work tree; "" deletes one.
func (r *mcRepo) write(files map[string]string) {
	r.t.Helper()
	for p, content := range files {
		full := filepath.Join(r.dir, p)
		if content == "" {
			if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
				r.t.Fatal(err)
			}
			continue
		}
		gittest.WriteFile(r.t, r.dir, p, content)
	}
}

// startTurn runs a turn start and records the prompt in the transcript.
func (r *mcRepo) startTurn(sessionID, prompt string) TurnInput {
	r.t.Helper()
	in := r.input(sessionID, prompt)
	if err := r.m.TurnStart(context.Background(), in); err != nil {
		r.t.Fatalf("TurnStart %s: %v", sessionID, err)
	}
	r.appendLines(sessionID, fakeLine{Prompt: prompt})
	return in
}

// agentWrites writes files as the agent: the files, and a write event per
// file in the transcript.
func (r *mcRepo) agentWrites(sessionID string, files map[string]string) {
	r.t.Helper()
	r.write(files)
	for _, p := range sortedKeys(files) {
		r.appendLines(sessionID, fakeLine{Write: p})
	}
}

func (r *mcRepo) appendLines(sessionID string, lines ...fakeLine) {
	r.t.Helper()
	f, err := os.OpenFile(r.input(sessionID, "").TranscriptPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	for _, l := range lines {
		b, _ := json.Marshal(l)
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		r.t.Fatal(err)
	}
}

// endTurn answers and ends the turn.
func (r *mcRepo) endTurn(in TurnInput, answer string, tokensIn, tokensOut int) {
	r.t.Helper()
	r.appendLines(in.SessionID, fakeLine{In: tokensIn, Out: tokensOut}, fakeLine{Answer: answer})
	if err := r.m.TurnEnd(context.Background(), in); err != nil {
		r.t.Fatalf("TurnEnd %s: %v", in.SessionID, err)
	}
}

// turn is a whole agent turn that writes files.
func (r *mcRepo) turn(sessionID, prompt string, files map[string]string, tokensIn, tokensOut int) {
	r.t.Helper()
	in := r.startTurn(sessionID, prompt)
	r.agentWrites(sessionID, files)
	r.endTurn(in, "done: "+prompt, tokensIn, tokensOut)
}

// prepare runs prepare-commit-msg over msg for a commit of the staged
// changes and returns the message it leaves.
func (r *mcRepo) prepare(msg, source string) string {
	r.t.Helper()
	path := filepath.Join(r.t.TempDir(), "COMMIT_EDITMSG")
	if err := os.WriteFile(path, []byte(msg), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if err := r.m.PrepareCommitMsg(context.Background(), path, source); err != nil {
		r.t.Fatalf("PrepareCommitMsg: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// commit stages paths (none: commits what is staged) and commits them as
// `git commit -m` with the hooks entire installs: prepare-commit-msg, the
// commit, post-commit. It returns the checkpoint the commit links (""
// when none).
func (r *mcRepo) commit(msg string, paths ...string) checkpoint.ID {
	r.t.Helper()
	if len(paths) > 0 {
		gittest.Git(r.t, r.dir, append([]string{"add", "-A", "--"}, paths...)...)
	}
	msg = r.prepare(msg, "message")
	path := filepath.Join(r.t.TempDir(), "MSG")
	if err := os.WriteFile(path, []byte(msg), 0o644); err != nil {
		r.t.Fatal(err)
	}
	gittest.Git(r.t, r.dir, "commit", "-q", "-F", path)
	if err := r.m.PostCommit(context.Background()); err != nil {
		r.t.Fatalf("PostCommit: %v", err)
	}
	id, _ := checkpoint.CheckpointOf(gittest.Git(r.t, r.dir, "log", "-1", "--format=%B"))
	return id
}

func (r *mcRepo) state(sessionID string) *session.State {
	r.t.Helper()
	st, err := r.env.Sessions.Load(sessionID)
	if err != nil {
		r.t.Fatalf("load session %s: %v", sessionID, err)
	}
	return st
}

func (r *mcRepo) head() string { return gittest.Git(r.t, r.dir, "rev-parse", "HEAD") }

// slot returns the session's slot of a committed checkpoint.
func (r *mcRepo) slot(id checkpoint.ID, sessionID string) *checkpoint.Session {
	r.t.Helper()
	cp, err := r.env.checkpoints().Read(id)
	if err != nil {
		r.t.Fatalf("read checkpoint %s: %v", id, err)
	}
	for _, s := range cp.Sessions {
		if s.Metadata.SessionID == sessionID {
			return s
		}
	}
	return nil
}

// shadowTip is the tip of a session's shadow branch ("" when none).
func (r *mcRepo) shadowTip(st *session.State) string {
	out, _ := gittest.GitErr(r.dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+shadowBranch(st))
	return strings.TrimSpace(out)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return unionSorted(out)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
