package strategy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/renderrefs"
	"github.com/entirecli/entire/strategy/references"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNoCommits is returned by a turn end in a repository without commits:
// there is nothing to hang a checkpoint on yet.
var ErrNoCommits = errors.New("Entire: skipping checkpoint. Will activate after first commit.")

// turnEndHead returns HEAD for a turn end, or ErrNoCommits in a repository
// without commits, and an error when the transcript is missing. An agent
// that writes its transcript after the turn-end hook started (Claude Code
// creates the file at its first flush, which a short first turn can end
// before) gets the bounded turn-end wait to create it.
func (e *Env) turnEndHead(ctx context.Context, in TurnInput) (plumbing.Hash, error) {
	head, err := e.Repo.Head()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if head.IsZero() {
		return plumbing.ZeroHash, ErrNoCommits
	}
	_, err = os.Stat(in.TranscriptPath)
	if errors.Is(err, fs.ErrNotExist) && in.TranscriptPath != "" {
		if _, ok := in.Agent.(agent.TurnEndWatcher); ok {
			e.awaitTurnEnd(ctx, in, agent.Position{})
			_, err = os.Stat(in.TranscriptPath)
		}
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("transcript %q: %w", in.TranscriptPath, err)
	}
	return head, nil
}

// initState fills a state for a session first seen at a turn end (its turn
// start hook did not run).
func (m *ManualCommit) initState(st *session.State, in TurnInput, head plumbing.Hash, ws *worktreeStatus) {
	now := m.env.Now().UTC()
	st.CLIVersion = m.env.CLIVersion
	st.BaseCommit, st.AttributionBaseCommit = head.String(), head.String()
	st.WorktreePath, st.WorktreeID = m.env.Repo.Root, m.env.Repo.WorktreeID
	st.StartedAt = now
	st.Phase = session.PhaseActive
	st.TurnID = session.NewTurnID()
	st.UntrackedFilesAtStart = ws.Untracked
	if in.Agent != nil {
		st.AgentType = string(in.Agent.Type())
	}
}

// scan analyses the transcript from a cursor. A transcript that cannot be
// analysed is logged and treated as empty: the files git reports are still
// checkpointed.
func (m *ManualCommit) scan(in TurnInput, from checkpointCursor) *agent.Analysis {
	return m.scanTurn(in, from, -1)
}

// scanTurn is scan ending before the next turn's first prompt that starts
// at byte offset after or later (after < 0: at the end; see
// agent.ScanTurn).
func (m *ManualCommit) scanTurn(in TurnInput, from checkpointCursor, after int64) *agent.Analysis {
	empty := &agent.Analysis{From: from, To: from, LastAssistant: in.End.FinalAnswer}
	sc, ok := scanner(in.Agent)
	if !ok || in.TranscriptPath == "" {
		return empty
	}
	a, err := agent.ScanTurn(sc, in.TranscriptPath, from, after)
	if err != nil {
		m.env.Log.Warn("scan transcript", "path", in.TranscriptPath, "error", err)
		return empty
	}
	if in.End.FinalAnswer != "" {
		// The client's own word for the turn's final answer: it holds
		// even when the transcript lacks it.
		a.LastAssistant = in.End.FinalAnswer
	}
	m.addSubagentUsage(in, a)
	return a
}

// addSubagentUsage adds the usage of the subagents the scan saw start, read
// from their own transcripts (SPEC 4.4), to a.Tokens.SubagentTokens. Each
// subagent is counted by the scan that sees its start, once.
func (m *ManualCommit) addSubagentUsage(in TurnInput, a *agent.Analysis) {
	r, ok := in.Agent.(agent.SubagentTokenReader)
	if !ok || len(a.SubagentIDs) == 0 {
		return
	}
	sub, err := r.SubagentTokenUsage(in.TranscriptPath, a.SubagentIDs)
	if err != nil {
		m.env.Log.Warn("subagent token usage", "error", err)
		return
	}
	if sub.IsZero() {
		return
	}
	if a.Tokens.SubagentTokens == nil {
		a.Tokens.SubagentTokens = &agent.TokenUsage{}
	}
	a.Tokens.SubagentTokens.Add(sub)
}

// snapshot stores the current content of the paths git status reported
// (ws) as blobs and returns the tree changes a step records. Only the
// files whose stat data changed since the session's last snapshot are
// read; the cache is updated.
func (m *ManualCommit) snapshot(st *session.State, ws *worktreeStatus) ([]gitrepo.Change, error) {
	changes, cache, err := m.env.Repo.WorktreeChangesCached(ws.Dirty, st.SnapshotCache)
	if err != nil {
		return nil, err
	}
	st.SnapshotCache = cache
	return changes, nil
}

// transcriptSource is what a transcript gained since it was last stored,
// already redacted: new JSONL lines, or a whole JSON document. New JSONL
// lines of more than one checkpoint.SourceWindow are not read ahead: the
// store reads, redacts and stores them window by window (stream), so that
// no part of the hook holds them all.
type transcriptSource struct {
	path    string
	lines   []byte // redacted complete lines (JSONL)
	end     int64  // source offset just past lines
	restart bool   // the source was rewritten: store it from scratch
	// stream reads the new lines when they were too many to read ahead
	// (lines is then nil); end is set once they are stored.
	stream *checkpoint.SourceReader
	// doc is the redacted whole document (agent.TranscriptDocument), nil
	// for JSONL; docType is the agent whose chunker stores it.
	doc     []byte
	docType agent.AgentType
	// refs are the render references lifted out of lines or doc (of a
	// stream: once it is stored).
	refs []renderrefs.Reference
}

// hasLines reports whether src may hold new JSONL lines.
func (src *transcriptSource) hasLines() bool {
	return len(src.lines) > 0 || src.stream != nil && src.stream.Unread() > 0
}

// close releases the source file of a stream; it may be called more than
// once.
func (src *transcriptSource) close() {
	if src.stream != nil {
		src.stream.Close()
		src.stream = nil
	}
}

// readTranscript reads and redacts what the transcript gained since the
// last stored position (the whole file for a single-document transcript,
// as the turn's agent tells the format from the file's start). More than
// a window of new JSONL lines is left to the store to read (see
// transcriptSource); the caller closes src.
func (m *ManualCommit) readTranscript(st *session.State, in TurnInput) (*transcriptSource, error) {
	return m.readTranscriptUpTo(st, in, -1)
}

// readTranscriptUpTo is readTranscript reading no JSONL line that starts
// at offset limit or later (limit < 0: no limit): the lines of one turn.
func (m *ManualCommit) readTranscriptUpTo(st *session.State, in TurnInput, limit int64) (*transcriptSource, error) {
	src := &transcriptSource{path: in.TranscriptPath}
	if agent.FileFormat(in.Agent, in.TranscriptPath) == agent.TranscriptDocument {
		content, err := agent.ReadTranscriptFile(in.TranscriptPath)
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		src.doc, src.refs = m.redactDocument(content)
		src.docType = in.Agent.Type()
		return src, nil
	}
	r, err := checkpoint.OpenSourceUpTo(in.TranscriptPath, st.ShadowTranscript, limit)
	if err != nil {
		return nil, err
	}
	src.restart, src.end = r.Restart(), r.End()
	if r.Unread() > checkpoint.SourceWindow {
		src.stream = r
		return src, nil
	}
	defer r.Close()
	// At most one window: one read gives every complete line.
	data, err := r.Next()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if src.lines, src.refs, err = m.redactLines(data); err != nil {
		return nil, err
	}
	src.end = r.End()
	return src, nil
}

// storeSource stores what readTranscript read after the session's stored
// transcript and returns the new transcript state. The render references
// lifted out of it join the session's pending references, which the next
// condensation writes as references.json.
// The stored state records the rules it went through: a whole new store
// has the rules in force; an append keeps the previous chunks' (stale when
// the rules changed since, see underCurrentRules).
//
// New JSONL lines go through one checkpoint.JSONLAppender: the lines
// readTranscript read ahead, or the windows of a stream, each read and
// redacted (a line at a time, as redactLines does, so a secret never
// straddles two windows) and packed into chunks before the next is read.
// The chunks are those checkpoint.AppendJSONL writes for all the lines at
// once.
func (m *ManualCommit) storeSource(st *session.State, src *transcriptSource) (*checkpoint.TranscriptState, error) {
	if src.doc != nil {
		m.keepReferences(st.SessionID, src.refs)
		ts, err := checkpoint.WriteWhole(m.env.Repo, src.doc, src.docType)
		if err == nil {
			ts.Rules = m.env.rules()
			m.dropTranscriptLog(st.SessionID)
		}
		return ts, err
	}
	defer src.close()
	prev := st.ShadowTranscript
	if src.restart {
		prev = nil
	}
	app, err := checkpoint.NewJSONLAppender(m.env.Repo, prev)
	if err != nil {
		return nil, err
	}
	// The lines are parsed for the local log on another goroutine while
	// they are stored (and the next window read): both only read them,
	// and each costs about as much as the other.
	note := newStoredNote(prev, st.AgentType)
	windows := make(chan []byte, 2)
	parsed := make(chan struct{})
	go func(windows <-chan []byte) {
		defer close(parsed)
		for lines := range windows {
			note.add(lines)
		}
	}(windows)
	parsing := true
	endParse := func() {
		if parsing {
			parsing = false
			close(windows)
			<-parsed
		}
	}
	defer endParse()
	store := func(lines []byte) error {
		windows <- lines
		return app.Write(lines)
	}
	if err := store(src.lines); err != nil {
		return nil, err
	}
	for src.stream != nil {
		window, err := src.stream.Next()
		if errors.Is(err, io.EOF) {
			src.end = src.stream.End()
			break
		}
		if err != nil {
			return nil, err
		}
		lines, refs, err := m.redactLines(window)
		if err != nil {
			return nil, err
		}
		src.refs = append(src.refs, refs...)
		if err := store(lines); err != nil {
			return nil, err
		}
	}
	ts, err := app.Close()
	endParse()
	if err != nil {
		return nil, err
	}
	m.keepReferences(st.SessionID, src.refs)
	if prev == nil {
		ts.Rules = m.env.rules()
	}
	if err := ts.SetSource(src.path, src.end); err != nil {
		return nil, err
	}
	m.finishNote(st.SessionID, note, prev, ts, src.path)
	return ts, nil
}

// underCurrentRules returns the stored transcript ts as a checkpoint on
// the metadata branch takes it, which leaves the machine: when its chunks
// went through other redaction rules than those in force (a pattern added
// since), every chunk is redacted again and only those that change are
// rewritten. It costs a read of the stored transcript once per change of
// the rules.
func (m *ManualCommit) underCurrentRules(st *session.State, ts *checkpoint.TranscriptState) (*checkpoint.TranscriptState, error) {
	fp := m.env.rules()
	if fp == "" || ts == nil || ts.Rules == fp {
		return ts, nil
	}
	ag, _ := agent.GetByAgentType(agent.AgentType(st.AgentType))
	doc := agent.FileFormat(ag, st.TranscriptPath) == agent.TranscriptDocument
	out, err := checkpoint.RewriteChunks(m.env.Repo, ts, func(chunk []byte) []byte {
		if doc {
			red, _ := m.redactDocument(chunk)
			return red
		}
		red, _ := redactLineRange(m.env.Redactor, chunk)
		if !bytes.HasSuffix(chunk, []byte{'\n'}) {
			red = bytes.TrimSuffix(red, []byte{'\n'})
		}
		return red
	})
	if err != nil {
		return nil, fmt.Errorf("redact the stored transcript under the rules in force: %w", err)
	}
	out.Rules = fp
	m.env.Log.Info("stored transcript redacted again under the rules in force", "session_id", st.SessionID, "rules", fp, "was", ts.Rules)
	return out, nil
}

// storeTranscript stores the transcript lines appended since the last
// stored position, redacted, and returns the new transcript state.
func (m *ManualCommit) storeTranscript(st *session.State, in TurnInput) (*checkpoint.TranscriptState, error) {
	src, err := m.readTranscript(st, in)
	if err != nil {
		return nil, err
	}
	defer src.close()
	return m.storeSource(st, src)
}

// redactLines lifts render references out of complete JSONL lines and
// redacts them, line by line, so that a line always gives the same bytes;
// large inputs are split at line boundaries over the available cores. It
// returns the lines and the references in order of appearance; the error
// is a panic of one of its goroutines (a *panics.Error).
func (m *ManualCommit) redactLines(data []byte) ([]byte, []renderrefs.Reference, error) {
	if len(data) == 0 {
		return data, nil, nil
	}
	if _, ok := m.env.Redactor.(NoRedaction); ok && !bytes.Contains(data, []byte(renderrefs.Marker)) {
		return data, nil, nil
	}
	parts := runtime.GOMAXPROCS(0)
	if len(data) < 256<<10 || parts < 2 {
		out, refs := redactLineRange(m.env.Redactor, data)
		return out, refs, nil
	}
	whole := data
	var cuts [][]byte
	for len(data) > 0 && len(cuts) < parts-1 {
		cut := len(data) / (parts - len(cuts))
		if i := bytes.IndexByte(data[cut:], '\n'); i >= 0 {
			cut += i + 1
		} else {
			cut = len(data)
		}
		cuts = append(cuts, data[:cut])
		data = data[cut:]
	}
	if len(data) > 0 {
		cuts = append(cuts, data)
	}
	if len(cuts) == 1 {
		// One line longer than the rest: nothing to share out.
		out, refs := redactLineRange(m.env.Redactor, cuts[0])
		return out, refs, nil
	}
	out := make([][]byte, len(cuts))
	refs := make([][]renderrefs.Reference, len(cuts))
	errs := make([]error, len(cuts))
	var wg sync.WaitGroup
	for i, c := range cuts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer panics.Recover(&errs[i])
			panics.Inject(m.env.Getenv, "redact-lines")
			out[i], refs[i] = redactLineRange(m.env.Redactor, c)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, fmt.Errorf("redact transcript: %w", err)
	}
	var all []renderrefs.Reference
	unchanged := true
	for i, r := range refs {
		all = append(all, r...)
		unchanged = unchanged && sameBytes(out[i], cuts[i])
	}
	if unchanged {
		return whole, all, nil // no copy of what redaction left as it was
	}
	return bytes.Join(out, nil), all, nil
}

// redactLineRange cleans the render references out of each line of data
// (references.CleanJSON; only lines with the marker cost more than a scan)
// and redacts it; every line of the result ends with a newline. Data that
// comes through unchanged is returned as it is, not copied: a turn that
// wrote a line of many megabytes is not held twice for nothing.
func redactLineRange(r Redactor, data []byte) ([]byte, []renderrefs.Reference) {
	var out []byte // nil while every line came back as it was
	var refs []renderrefs.Reference
	for pos := 0; pos < len(data); {
		line, next := data[pos:], len(data)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], pos+i+1
		}
		clean, found := references.CleanJSON(line)
		refs = append(refs, found...)
		red := r.JSONLine(clean)
		if out == nil && !sameBytes(red, line) {
			out = append(make([]byte, 0, len(data)), data[:pos]...)
		}
		if out != nil {
			out = append(append(out, red...), '\n')
		}
		pos = next
	}
	if out != nil {
		return out, refs
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return append(data[:len(data):len(data)], '\n'), refs
	}
	return data, refs
}

// sameBytes reports whether a and b are the same slice of the same array
// (a redactor returns its input when it finds nothing).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// redactDocument lifts render references out of a whole JSON document and
// redacts it.
func (m *ManualCommit) redactDocument(b []byte) ([]byte, []renderrefs.Reference) {
	b, refs := references.CleanJSON(b)
	if d, ok := m.env.Redactor.(interface{ JSONDoc([]byte) []byte }); ok {
		return d.JSONDoc(b), refs
	}
	return []byte(m.env.Redactor.Text(string(b))), refs
}

// redactTools redacts the details of tool calls (a Bash command often
// carries a token).
func (m *ManualCommit) redactTools(tools []agent.ToolUse) []agent.ToolUse {
	out := make([]agent.ToolUse, len(tools))
	for i, t := range tools {
		out[i] = agent.ToolUse{Name: t.Name, Detail: m.env.Redactor.Text(t.Detail)}
	}
	return out
}

func (m *ManualCommit) redactAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = m.env.Redactor.Text(s)
	}
	return out
}

// readShadowPrompts returns the prompts stored in a session's metadata dir
// at a shadow commit.
func readShadowPrompts(repo *gitrepo.Repo, commit plumbing.Hash, sessionID string) []string {
	b, err := readShadowFile(repo, commit, metadataDir(sessionID)+"/"+checkpoint.PromptFile)
	if err != nil {
		return nil
	}
	return splitPrompts(string(b))
}

// readShadowFile reads a file of a shadow commit's tree.
func readShadowFile(repo *gitrepo.Repo, commit plumbing.Hash, path string) ([]byte, error) {
	t, err := repo.CommitTree(commit)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("%s: %w", path, object.ErrFileNotFound)
	}
	f, err := t.File(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, object.ErrFileNotFound)
	}
	return repo.ReadBlob(f.Hash)
}
