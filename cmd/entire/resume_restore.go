package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/iostreams"
)

// sessionFilePather is implemented by agents that say where WriteSession
// writes a session.
type sessionFilePather interface {
	SessionFilePath(session *agent.AgentSession) (string, error)
}

// testProjectDirEnv maps agents to the environment variable that replaces
// their session directory in tests (SPEC 4.6).
var testProjectDirEnv = map[agent.AgentName]string{
	agent.AgentNameClaudeCode: "ENTIRE_TEST_CLAUDE_PROJECT_DIR",
	agent.AgentNameGemini:     "ENTIRE_TEST_GEMINI_PROJECT_DIR",
}

// planRestore decides, for every session of cp, which agent gets its
// transcript and where, without writing anything. The transcript goes to
// the agent's session directory for this repository (where `claude -r` and
// `gemini --resume` look), whatever path it had on the machine that
// recorded it. It fails when an agent's storage directory does not exist.
func planRestore(f *factory, repo *gitrepo.Repo, cp *checkpoint.Checkpoint) ([]restorePlan, error) {
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
		fp, ok := a.(sessionFilePather)
		if !ok {
			return nil, fmt.Errorf("session %s: %s cannot restore sessions", s.Metadata.SessionID, a.Type())
		}
		target, err := fp.SessionFilePath(&agent.AgentSession{SessionID: s.Metadata.SessionID, AgentName: a.Name(), RepoPath: repo.Root, NativeData: content})
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", s.Metadata.SessionID, err)
		}
		if err := checkAgentStorage(f, a, filepath.Dir(target)); err != nil {
			return nil, err
		}
		p := restorePlan{agent: a, session: s, content: content, target: target}
		if local, err := os.ReadFile(target); err == nil {
			lt, ct := lastTimestamp(local), lastTimestamp(content)
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

// readResumeCheckpoints reads the checkpoints of ids, fetching the
// metadata from the checkpoint remote when one is not here; missing are
// those that are nowhere.
func readResumeCheckpoints(ctx context.Context, f *factory, repo *gitrepo.Repo, store *checkpoint.Store, ids []checkpoint.ID) (cps []*checkpoint.Checkpoint, missing []checkpoint.ID, err error) {
	haveAll := func() bool {
		for _, id := range ids {
			if !store.Exists(id) {
				return false
			}
		}
		return true
	}
	if !haveAll() {
		if err := syncMetadata(ctx, f, repo, haveAll); err != nil {
			return nil, nil, err
		}
	}
	for _, id := range ids {
		if !store.Exists(id) {
			missing = append(missing, id)
			continue
		}
		cp, err := store.Read(id)
		if err != nil {
			return nil, nil, err
		}
		cps = append(cps, cp)
	}
	return cps, missing, nil
}

// planRestoreAll is planRestore over the checkpoints a commit carries: a
// session found in several of them is restored once, from the checkpoint
// whose transcript goes furthest; the plans are ordered by their
// transcripts' last entry, the most recent last.
func planRestoreAll(f *factory, repo *gitrepo.Repo, cps []*checkpoint.Checkpoint) ([]restorePlan, error) {
	if len(cps) == 1 {
		return planRestore(f, repo, cps[0])
	}
	var plans []restorePlan
	at := map[string]int{}
	for _, cp := range cps {
		ps, err := planRestore(f, repo, cp)
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
		return lastTimestamp(plans[i].content).Before(lastTimestamp(plans[j].content))
	})
	return plans, nil
}

// joinIDs lists checkpoint IDs separated by commas.
func joinIDs(ids []checkpoint.ID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}

// checkAgentStorage fails with a clear message when the agent keeps no data
// on this machine: its configuration directory (~/.claude, ~/.gemini) or,
// in tests, the session directory override does not exist. The project's
// own session directory below it is created on write.
func checkAgentStorage(f *factory, a agent.Agent, sessionDir string) error {
	root := sessionDir
	if env := testProjectDirEnv[a.Name()]; env == "" || f.Getenv(env) == "" {
		switch a.Name() {
		case agent.AgentNameClaudeCode: // <config>/projects/<project>
			root = filepath.Dir(filepath.Dir(sessionDir))
		case agent.AgentNameGemini: // ~/.gemini/tmp/<hash>/chats
			root = filepath.Dir(filepath.Dir(filepath.Dir(sessionDir)))
		}
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return fmt.Errorf("%s session directory %s does not exist: is %s installed and has it been run on this machine? (nothing was changed)", a.Type(), root, a.Type())
	}
	return nil
}

// confirmNewer asks before overwriting local transcripts that have newer
// entries than the checkpoint, unless force.
func confirmNewer(f *factory, plans []restorePlan, force bool) error {
	var newer []restorePlan
	for _, p := range plans {
		if p.newer {
			newer = append(newer, p)
		}
	}
	if len(newer) == 0 || force {
		return nil
	}
	fmt.Fprintln(f.IO.ErrOut, "Warning: Local session log(s) have newer entries than the checkpoint:")
	for _, p := range newer {
		fmt.Fprintf(f.IO.ErrOut, "  %s (%s)\n", iostreams.Escape(p.session.Metadata.SessionID), iostreams.Escape(p.target))
	}
	ok, err := confirm(f, "Overwrite local session logs with checkpoint versions?", "Overwrite", "Cancel", false)
	if errors.Is(err, errCannotPrompt) {
		return errors.New("local session logs are newer than the checkpoint; not overwriting them (use --force to overwrite)")
	}
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(f.IO.ErrOut, "Cancelled; nothing was changed.")
		return silentError(nil)
	}
	return nil
}

// printResumeCommands prints how to continue the restored sessions
// (SPEC 6.5 step 5).
func printResumeCommands(f *factory, plans []restorePlan) {
	w := f.IO.ErrOut
	line := func(p restorePlan) string {
		cmd := p.agent.FormatResumeCommand(p.session.Metadata.SessionID)
		if p.prompt != "" {
			cmd += "  # " + explain.Truncate(p.prompt, 60)
		}
		return iostreams.Escape(cmd) // the session ID and prompt of a teammate's checkpoint
	}
	if len(plans) == 1 {
		fmt.Fprintf(w, "Session: %s\n", iostreams.Escape(plans[0].session.Metadata.SessionID))
		fmt.Fprintf(w, "Restored transcript to %s\n", iostreams.Escape(plans[0].target))
		fmt.Fprintln(w, "To continue this session, run:")
		fmt.Fprintf(w, "  %s\n", line(plans[0]))
		return
	}
	fmt.Fprintf(w, "Restored %d sessions. To continue, run:\n", len(plans))
	for i, p := range plans {
		suffix := ""
		if i == len(plans)-1 {
			suffix = " (most recent)"
		}
		fmt.Fprintf(w, "  %s%s\n", line(p), suffix)
	}
}

// lastTimestamp returns the newest entry time of a transcript: the last
// JSONL line with a "timestamp", or the last Gemini message's (or the
// document's lastUpdated); zero when there is none.
func lastTimestamp(content []byte) time.Time {
	var ts struct {
		Timestamp   string `json:"timestamp"`
		LastUpdated string `json:"lastUpdated"`
		Messages    []struct {
			Timestamp string `json:"timestamp"`
		} `json:"messages"`
	}
	trimmed := bytes.TrimSpace(content)
	if agent.DetectAgentTypeFromContent(trimmed) == agent.AgentTypeGemini && json.Unmarshal(trimmed, &ts) == nil && len(ts.Messages) > 0 {
		if t := parseTime(ts.Messages[len(ts.Messages)-1].Timestamp); !t.IsZero() {
			return t
		}
		return parseTime(ts.LastUpdated)
	}
	for len(trimmed) > 0 {
		var l []byte
		if i := bytes.LastIndexByte(trimmed, '\n'); i >= 0 {
			l, trimmed = trimmed[i+1:], trimmed[:i]
		} else {
			l, trimmed = trimmed, nil
		}
		ts.Timestamp = ""
		if json.Unmarshal(l, &ts) == nil {
			if t := parseTime(ts.Timestamp); !t.IsZero() {
				return t
			}
		}
	}
	return time.Time{}
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
