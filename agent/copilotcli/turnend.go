package copilotcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/entirecli/entire/agent"
)

var _ agent.TurnEndWatcher = (*Agent)(nil)

// WatchTurnEnd returns a check that reports whether the events file holds
// the end of the turn that started at `from`: the hook.start event of the
// agentStop hook that ends it. Copilot writes its events as they happen and
// normally before it runs the hook, but on a loaded machine the turn's last
// assistant.message can still be on its way when agentStop runs; everything
// before the hook's own hook.start is in the file once that is. Each call
// reads only the complete lines appended since the previous one.
func (a *Agent) WatchTurnEnd(path string, from agent.Position, _ agent.TurnEnd) agent.TurnEndCheck {
	from = from.Sanitized()
	w := &turnEndWatch{path: path, offset: from.Offset}
	if from.Offset == 0 {
		w.skip = from.Entries
	}
	return w.check
}

// turnEndWatch is the state of one WatchTurnEnd check between calls.
type turnEndWatch struct {
	path   string
	offset int64 // next byte to read: the end of the last complete line read
	skip   int   // complete lines still to skip (a cursor without offset)
	done   bool
}

func (w *turnEndWatch) check() (bool, error) {
	if w.done {
		return true, nil
	}
	f, err := agent.OpenTranscript(w.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() < w.offset {
		w.offset, w.skip = 0, 0 // rewritten: the whole file is the turn's
	}
	if _, err := f.Seek(w.offset, io.SeekStart); err != nil {
		return false, fmt.Errorf("watch %s: %w", w.path, err)
	}
	consumed, _, err := agent.ForEachLine(f, func(line []byte) error {
		if w.skip > 0 {
			w.skip--
			return nil
		}
		if isAgentStopStart(line) {
			w.done = true
		}
		return nil
	})
	w.offset += consumed
	if err != nil {
		return w.done, fmt.Errorf("watch %s: %w", w.path, err)
	}
	return w.done, nil
}

// isAgentStopStart reports whether an events line is the hook.start of an
// agentStop hook.
func isAgentStopStart(line []byte) bool {
	var e struct {
		Type string `json:"type"`
		Data struct {
			HookType string `json:"hookType"`
		} `json:"data"`
	}
	return json.Unmarshal(line, &e) == nil && e.Type == "hook.start" && e.Data.HookType == "agentStop"
}
