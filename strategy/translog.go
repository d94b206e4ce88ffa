package strategy

import (
	"bytes"
	"encoding/json"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/condensed"
	"github.com/entirecli/entire/strategy/translog"
)

// transcriptLog returns a session's local transcript logs.
func (m *ManualCommit) transcriptLog(sessionID string) *translog.Log {
	return translog.New(m.env.Repo.CommonDir, sessionID)
}

// dropTranscriptLog removes a session's local logs: a JSON document is
// stored whole at every step, so neither a cut nor condensed entries can
// come from them. Failures are logged.
func (m *ManualCommit) dropTranscriptLog(sessionID string) {
	if err := m.transcriptLog(sessionID).Remove(); err != nil {
		m.env.Log.Warn("transcript log", "error", err)
	}
}

// storedNote gathers, line by line as a store writes them, the
// condensed-entry records finishNote logs, so that a store fed window by
// window (a stream, see storeSource) logs the same as one given every
// line at once.
type storedNote struct {
	p     condensed.LineParser
	recs  []condensed.Record
	first int
	reset bool
	lines bool // some line was added
}

// newStoredNote starts the note of a store after prev (nil: from the
// start) of a transcript of the agent labelled agentType.
func newStoredNote(prev *checkpoint.TranscriptState, agentType string) *storedNote {
	n := &storedNote{reset: prev == nil}
	if prev != nil {
		n.first = prev.Lines
	}
	n.p = condensed.LineParser{First: n.first, Label: agent.AgentType(agentType)}
	if a, err := agent.GetByAgentType(n.p.Label); err == nil {
		n.p.Agent = a
	}
	return n
}

// add parses redacted complete lines, in the order they are stored.
func (n *storedNote) add(lines []byte) {
	for rest := lines; len(rest) > 0; {
		line, tail, _ := bytes.Cut(rest, []byte{'\n'})
		n.recs = n.p.Line(line, n.recs)
		n.lines = true
		rest = tail
	}
}

// finishNote logs note n of the store that made ts after prev from the
// source file path.
func (m *ManualCommit) finishNote(sessionID string, n *storedNote, prev, ts *checkpoint.TranscriptState, path string) {
	if !n.reset && !n.lines {
		return
	}
	log := m.transcriptLog(sessionID)
	if n.p.Lines() == ts.Lines {
		recs := n.recs
		if recs == nil {
			recs = []condensed.Record{}
		}
		data, err := json.Marshal(recs)
		if err == nil {
			err = log.AddBatch(translog.Batch{From: n.first, To: ts.Lines, Offset: ts.SourceOffset, Records: data}, n.reset)
		}
		if err != nil {
			m.env.Log.Warn("transcript log", "error", err)
		}
	}
	var base *translog.Prefix
	if !n.reset {
		pr, ok := log.FindPrefix(prev.ContentHash, prev.SourceOffset)
		if !ok {
			return // the prefix's hash is unknown: no record until the next store from the start
		}
		base = &pr
	}
	f, err := agent.OpenTranscript(path)
	if err == nil {
		var pr translog.Prefix
		pr, err = translog.Extend(f, base, ts.SourceOffset)
		f.Close()
		if err == nil {
			err = m.addPrefix(log, pr, ts, n.reset)
		}
	}
	if err != nil {
		m.env.Log.Warn("transcript log", "error", err)
	}
}

// addPrefix records that ts stands for the raw prefix pr.
func (m *ManualCommit) addPrefix(log *translog.Log, pr translog.Prefix, ts *checkpoint.TranscriptState, reset bool) error {
	state, err := json.Marshal(ts)
	if err != nil {
		return err
	}
	pr.ContentHash, pr.Lines, pr.State = ts.ContentHash, ts.Lines, state
	return log.AddPrefix(pr, reset)
}

// noteRewritten records that after, the stored transcript before redacted
// again under the rules in force (underCurrentRules), stands for the same
// raw prefix.
func (m *ManualCommit) noteRewritten(sessionID string, before, after *checkpoint.TranscriptState) {
	if before == nil || after == nil || before.ContentHash == after.ContentHash {
		return
	}
	log := m.transcriptLog(sessionID)
	if pr, ok := log.FindPrefix(before.ContentHash, before.SourceOffset); ok {
		if err := m.addPrefix(log, pr, after, false); err != nil {
			m.env.Log.Warn("transcript log", "error", err)
		}
	}
}

// condensedFile returns the condensed.File of a checkpoint scope
// starting at line start of the stored transcript ts, from the session's
// local log of condensed entries; nil when the log does not cover exactly
// the stored lines from start on (a session older than the log, a JSON
// document, a log lost), or the result is over condensed.MaxSize.
// redactAgain redacts the entries' texts under the rules in force: the
// stored transcript was redacted again under rules that changed since its
// lines were logged.
func (m *ManualCommit) condensedFile(sessionID string, ts *checkpoint.TranscriptState, start int, redactAgain bool) []byte {
	if ts == nil || ts.ContentHash == "" {
		return nil
	}
	bs, err := m.transcriptLog(sessionID).Batches()
	if err != nil {
		return nil
	}
	raws, ok := translog.Contiguous(bs, start, ts.Lines, ts.SourceOffset)
	if !ok {
		return nil
	}
	var recs []condensed.Record
	for _, raw := range raws {
		var batch []condensed.Record
		if json.Unmarshal(raw, &batch) != nil {
			return nil
		}
		recs = append(recs, batch...)
	}
	entries := condensed.Entries(recs, start)
	if redactAgain {
		for i := range entries {
			entries[i].Text = m.env.Redactor.Text(entries[i].Text)
		}
	}
	data, err := condensed.Encode(ts.ContentHash, start, entries)
	if err != nil || len(data) > condensed.MaxSize {
		return nil
	}
	return data
}

// pruneLog drops from the session's log of condensed entries the records
// of lines before keep (the start of the scope just condensed, which a
// finalization of its checkpoint still reads).
func (m *ManualCommit) pruneLog(sessionID string, keep int) {
	log := m.transcriptLog(sessionID)
	bs, err := log.Batches()
	if err != nil || len(bs) == 0 {
		return
	}
	last := bs[len(bs)-1]
	raws, ok := translog.Contiguous(bs, keep, last.To, last.Offset)
	if !ok {
		_ = log.ReplaceBatches(nil)
		return
	}
	if len(bs) == 1 && bs[0].From == keep {
		return
	}
	kept := []condensed.Record{}
	for _, raw := range raws {
		var batch []condensed.Record
		if json.Unmarshal(raw, &batch) != nil {
			_ = log.ReplaceBatches(nil)
			return
		}
		for _, r := range batch {
			if r.Line >= keep {
				kept = append(kept, r)
			}
		}
	}
	data, err := json.Marshal(kept)
	if err != nil {
		return
	}
	if err := log.ReplaceBatches([]translog.Batch{{From: keep, To: last.To, Offset: last.Offset, Records: data}}); err != nil {
		m.env.Log.Warn("transcript log", "error", err)
	}
}
