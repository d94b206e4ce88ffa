package strategy

import (
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/renderrefs"
	"github.com/entirecli/entire/strategy/references"
	"github.com/entirecli/entire/strategy/subagent"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// What a committed session slot holds besides the transcript, prompts and
// context:
//
//   - tasks/<id>/conclusion.json for every subagent task that concluded
//     since the session's last condensation. The hooks keep these records
//     pending in .entire/tmp/subagents/<session>/ (package subagent; the
//     task checkpoint on the shadow branch has a copy when the task changed
//     files); condensation copies every pending record that has a
//     conclusion into the slot and then drops it. A background task still
//     running stays pending for the next checkpoint.
//   - references.json: the render references lifted out of the transcript
//     lines stored since the last condensation (package refstore), kept in
//     .entire/tmp/references-<session>.json until then.

// keepReferences adds references lifted out of a stored transcript to the
// session's pending references (preview titles redacted). Failures are
// logged: references are hints.
func (m *ManualCommit) keepReferences(sessionID string, refs []renderrefs.Reference) {
	if len(refs) == 0 {
		return
	}
	references.Redact(refs, m.env.Redactor.Text)
	if err := references.AddPending(m.env.Repo.Root, sessionID, refs); err != nil {
		m.env.Log.Warn("keep render references", "session_id", sessionID, "error", err)
	}
}

// slotExtras returns the pending task records and references of a session
// as slot files, and the keys of the task records it took.
func (m *ManualCommit) slotExtras(sessionID string) (map[string][]byte, []string) {
	root := m.env.Repo.Root
	files := map[string][]byte{}
	var keys []string
	pending, err := subagent.NewPending(root).List(sessionID)
	if err != nil {
		m.env.Log.Warn("read pending subagent tasks", "session_id", sessionID, "error", err)
	}
	for _, p := range pending {
		if p.Task.Conclusion == nil {
			continue // still running: the next checkpoint takes it
		}
		id := p.Task.ID
		if id == "" {
			id = p.Key
		}
		data, err := subagent.Encode(p.Task)
		if err != nil {
			continue
		}
		files[subagent.SlotPath(id)] = data
		keys = append(keys, p.Key)
	}
	refs, err := references.ReadPending(root, sessionID)
	if err != nil {
		m.env.Log.Warn("read pending render references", "session_id", sessionID, "error", err)
	}
	if len(refs) > 0 {
		if data, err := references.Encode(refs); err == nil {
			files[references.FileName] = data
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	return files, keys
}

// dropSlotExtras removes what slotExtras handed to a written slot.
func (m *ManualCommit) dropSlotExtras(sessionID string, keys []string) {
	root := m.env.Repo.Root
	p := subagent.NewPending(root)
	for _, k := range keys {
		if err := p.Remove(sessionID, k); err != nil {
			m.env.Log.Warn("drop pending subagent task", "key", k, "error", err)
		}
	}
	if err := references.RemovePending(root, sessionID); err != nil {
		m.env.Log.Warn("drop pending render references", "session_id", sessionID, "error", err)
	}
}

// keptSlotExtras returns what a rewrite of a committed slot must carry
// over: its tasks/ tree, and its references merged with refs.
func (m *ManualCommit) keptSlotExtras(sess *checkpoint.Session, refs []renderrefs.Reference) (map[string][]byte, map[string]plumbing.Hash) {
	var files map[string][]byte
	var trees map[string]plumbing.Hash
	if old, err := references.ReadSlot(sess); err == nil {
		if all := references.Merge(old, refs); len(all) > 0 {
			if data, err := references.Encode(all); err == nil {
				files = map[string][]byte{references.FileName: data}
			}
		}
	}
	if h, ok := m.slotSubtree(sess, subagent.TasksDir); ok {
		trees = map[string]plumbing.Hash{subagent.TasksDir: h}
	}
	return files, trees
}

// slotSubtree returns the hash of a directory of a session slot.
func (m *ManualCommit) slotSubtree(sess *checkpoint.Session, name string) (plumbing.Hash, bool) {
	t, err := m.env.Repo.Git.TreeObject(sess.TreeHash())
	if err != nil {
		return plumbing.ZeroHash, false
	}
	e, err := t.FindEntry(name)
	if err != nil || e.Mode != filemode.Dir {
		return plumbing.ZeroHash, false
	}
	return e.Hash, true
}

// emitCheckpointRef announces a committed checkpoint as a render reference
// on the hook's stderr when references are enabled (an agent's `git
// commit`), with the commit subject as preview title.
func (m *ManualCommit) emitCheckpointRef(id checkpoint.ID, commitMessage string) {
	if !renderrefs.Enabled(m.env.Getenv) || m.env.Stderr == nil {
		return
	}
	subject, _, _ := strings.Cut(strings.TrimSpace(commitMessage), "\n")
	_ = renderrefs.Write(m.env.Stderr, renderrefs.Reference{
		Type: references.TypeCheckpoint, ID: id.String(), Intent: renderrefs.IntentCreated,
		Preview: &renderrefs.Preview{Title: m.env.Redactor.Text(subject)},
	})
}
