package rewind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
)

// restorePlan is one session transcript resume writes.
type restorePlan struct {
	agent   agent.Agent
	session *checkpoint.Session
	content []byte
	target  string
	newer   bool // the local file has newer entries than the checkpoint
	prompt  string
}

// plan decides, for every session of cp, which agent gets its transcript
// and where, without writing anything. The transcript goes to the agent's
// session directory for this repository (where the agent's resume command
// looks, see agent.SessionStore), whatever path it had on the machine that
// recorded it. It fails when an agent's storage directory does not exist.
func (r *resumer) plan(cp *checkpoint.Checkpoint) ([]restorePlan, error) {
	var plans []restorePlan
	for _, s := range cp.Sessions {
		// An ID that could not name a session here (a teammate's
		// checkpoint may hold anything) is skipped, as rewind does.
		if session.ValidateID(s.Metadata.SessionID) != nil {
			continue
		}
		content, err := s.Transcript()
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", cp.ID, err)
		}
		a := agent.ForTranscript(s.Metadata.Agent, content)
		st, ok := a.(agent.SessionStore)
		if !ok {
			return nil, fmt.Errorf("session %s: %s cannot restore sessions", s.Metadata.SessionID, a.Type())
		}
		target, err := st.SessionFilePath(&agent.AgentSession{SessionID: s.Metadata.SessionID, AgentName: a.Name(), RepoPath: r.Repo.Root, NativeData: content})
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", s.Metadata.SessionID, err)
		}
		if err := checkAgentStorage(a, st, filepath.Dir(target)); err != nil {
			return nil, err
		}
		p := restorePlan{agent: a, session: s, content: content, target: target}
		if local, err := os.ReadFile(target); err == nil {
			lt, ct := agent.LastEntryTime(a, local), agent.LastEntryTime(a, content)
			p.newer = !lt.IsZero() && lt.After(ct)
		}
		if pr := s.Prompts(); len(pr) > 0 {
			p.prompt = pr[len(pr)-1]
		}
		plans = append(plans, p)
	}
	if len(plans) == 0 {
		return nil, fmt.Errorf("checkpoint %s has no session to restore", cp.ID)
	}
	return plans, nil
}

// readCheckpoints reads the checkpoints of ids, fetching the metadata from
// the checkpoint remote when one is not here; missing are those that are
// nowhere.
func (r *resumer) readCheckpoints(ctx context.Context, ids []checkpoint.ID) (cps []*checkpoint.Checkpoint, missing []checkpoint.ID, err error) {
	haveAll := func() bool {
		for _, id := range ids {
			if !r.store.Exists(id) {
				return false
			}
		}
		return true
	}
	if !haveAll() {
		// Each by its own ref first (SPEC 10.3): nothing else is fetched.
		r.syncRefs(ctx, ids)
	}
	if !haveAll() {
		if err := r.syncMetadata(ctx, haveAll); err != nil {
			return nil, nil, err
		}
	}
	for _, id := range ids {
		if !r.store.Exists(id) {
			missing = append(missing, id)
			continue
		}
		cp, err := r.store.Read(id)
		if err != nil {
			return nil, nil, err // Store.Read's errors name the checkpoint
		}
		cps = append(cps, cp)
	}
	return cps, missing, nil
}

// planAll is plan over the checkpoints a commit carries: a session found in
// several of them is restored once, from the checkpoint whose transcript
// goes furthest; the plans are ordered by their transcripts' last entry,
// the most recent last.
func (r *resumer) planAll(cps []*checkpoint.Checkpoint) ([]restorePlan, error) {
	if len(cps) == 1 {
		return r.plan(cps[0])
	}
	var plans []restorePlan
	at := map[string]int{}
	for _, cp := range cps {
		ps, err := r.plan(cp)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			id := p.session.Metadata.SessionID
			i, dup := at[id]
			switch {
			case !dup:
				at[id] = len(plans)
				plans = append(plans, p)
			case len(p.content) > len(plans[i].content):
				plans[i] = p
			}
		}
	}
	sort.SliceStable(plans, func(i, j int) bool {
		return agent.LastEntryTime(plans[i].agent, plans[i].content).Before(agent.LastEntryTime(plans[j].agent, plans[j].content))
	})
	return plans, nil
}

// checkAgentStorage fails with a clear message when the agent keeps no data
// on this machine: the directory the agent's SessionStore names for
// sessionDir (its configuration directory, or in tests the session
// directory override) does not exist. The project's own session directory
// below it is created on write.
func checkAgentStorage(a agent.Agent, st agent.SessionStore, sessionDir string) error {
	root := st.StorageDir(sessionDir)
	if root == "" {
		return nil // the agent's program makes its own storage
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s session directory %s does not exist: is %s installed and has it been run on this machine? (nothing was changed)", a.Type(), root, a.Type())
	}
	return nil
}

// confirmNewer asks before overwriting local transcripts that have newer
// entries than the checkpoint, unless Force.
func (r *resumer) confirmNewer(plans []restorePlan) error {
	var newer []NewerTranscript
	for _, p := range plans {
		if p.newer {
			newer = append(newer, NewerTranscript{SessionID: p.session.Metadata.SessionID, Path: p.target})
		}
	}
	if len(newer) == 0 || r.Force {
		return nil
	}
	return r.Ask.ConfirmOverwrite(newer)
}
