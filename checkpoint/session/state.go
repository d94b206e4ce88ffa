package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
)

// ErrNotFound is returned (wrapped) when a session state or transient file
// does not exist. Test with errors.Is.
var ErrNotFound = errors.New("session: not found")

// ErrCorrupt is returned (wrapped) when a session state file exists but
// cannot be decoded.
var ErrCorrupt = errors.New("session: corrupt state file")

// ErrInvalidID is returned (wrapped) for a session or tool-use ID that cannot
// be used as a file name.
var ErrInvalidID = errors.New("session: invalid id")

// State is one session's state file, <git-common-dir>/entire-sessions/<id>.json.
// JSON keys are exactly those of Entire 0.4.x (SPEC 3.3), plus the
// omitempty extensions TranscriptCursor, ShadowTranscript, SnapshotCache,
// Todos and Changes, which 0.4.x ignores. Deprecated 0.4.x keys are read and
// migrated by Decode, never written. A State is a plain value, not safe for
// concurrent mutation.
type State struct {
	// SessionID is the agent's own session ID (the file name stem).
	SessionID string `json:"session_id"`
	// CLIVersion is the version of entire that created the state.
	CLIVersion string `json:"cli_version,omitempty"`
	// BaseCommit is the commit the shadow branch currently hangs off.
	BaseCommit string `json:"base_commit"`
	// AttributionBaseCommit is the base for line attribution; it advances
	// only after condensation. Decode backfills it from BaseCommit.
	AttributionBaseCommit string `json:"attribution_base_commit,omitempty"`
	// WorktreePath is the absolute root of the session's work tree.
	WorktreePath string `json:"worktree_path,omitempty"`
	// WorktreeID is the linked-worktree name ("" for the main worktree).
	WorktreeID string `json:"worktree_id,omitempty"`
	// StartedAt is when the session started.
	StartedAt time.Time `json:"started_at"`
	// EndedAt is set by SessionEnd; nil while the session lives.
	EndedAt *time.Time `json:"ended_at,omitempty"`
	// Phase is the state-machine phase; Decode normalises legacy values.
	Phase Phase `json:"phase,omitempty"`
	// TurnID is a 12-hex ID regenerated at every turn start (NewTurnID).
	TurnID string `json:"turn_id,omitempty"`
	// TurnCheckpointIDs are the checkpoint IDs condensed during the current
	// active turn.
	TurnCheckpointIDs []string `json:"turn_checkpoint_ids,omitempty"`
	// LastInteractionTime is updated by ActionUpdateLastInteraction.
	LastInteractionTime *time.Time `json:"last_interaction_time,omitempty"`
	// CheckpointCount is the number of shadow steps since the last
	// condensation (manual-commit), or of checkpoints the session has
	// committed (auto-commit).
	CheckpointCount int `json:"checkpoint_count"`
	// CheckpointTranscriptStart is the transcript offset (lines for Claude,
	// messages for Gemini) where the next checkpoint's portion begins.
	CheckpointTranscriptStart int `json:"checkpoint_transcript_start,omitempty"`
	// UntrackedFilesAtStart lists the non-protected paths present at start.
	UntrackedFilesAtStart []string `json:"untracked_files_at_start,omitempty"`
	// FilesTouched is the sorted union of changed paths since the last
	// condensation.
	FilesTouched []string `json:"files_touched,omitempty"`
	// LastCheckpointID is the last condensed checkpoint ID.
	LastCheckpointID string `json:"last_checkpoint_id,omitempty"`
	// AgentType is "Claude Code", "Gemini CLI" or "Agent".
	AgentType string `json:"agent_type,omitempty"`
	// TokenUsage is the accumulated usage of the session's steps.
	TokenUsage *agent.TokenUsage `json:"token_usage,omitempty"`
	// TranscriptIdentifierAtStart is the last UUID / message ID at the first
	// step.
	TranscriptIdentifierAtStart string `json:"transcript_identifier_at_start,omitempty"`
	// TranscriptPath is the absolute path of the live agent transcript.
	TranscriptPath string `json:"transcript_path,omitempty"`
	// FirstPrompt is the first prompt, whitespace-collapsed, at most 100
	// runes plus "...".
	FirstPrompt string `json:"first_prompt,omitempty"`
	// PromptAttributions holds one attribution per step.
	PromptAttributions []PromptAttribution `json:"prompt_attributions,omitempty"`
	// PendingPromptAttribution is computed at turn start and moved into
	// PromptAttributions at the next save.
	PendingPromptAttribution *PromptAttribution `json:"pending_prompt_attribution,omitempty"`

	// TranscriptCursor (extension) remembers how far the live transcript
	// has been read, so the next hook can continue from there.
	TranscriptCursor *TranscriptCursor `json:"transcript_cursor,omitempty"`
	// ShadowTranscript (extension) is the bookkeeping of the redacted
	// transcript chunks already stored on the shadow branch, so that a step
	// stores only what was appended since.
	ShadowTranscript *checkpoint.TranscriptState `json:"shadow_transcript,omitempty"`
	// SnapshotCache (extension) remembers the stat data and blob of the
	// work-tree files the last step stored, so that the next step does not
	// read and hash the ones that did not change.
	SnapshotCache map[string]gitrepo.FileStat `json:"snapshot_cache,omitempty"`
	// Todos (extension) remembers the items the agent's todo tools keep by
	// ID (Claude Code's tasks) across the session's hooks; nil until the
	// first such call.
	Todos *TodoRecord `json:"todos,omitempty"`
	// Changes (extension) says who changed which paths since the last
	// condensation: the session's recorded turns, or the user between
	// them. nil in a state that only versions without it wrote, where
	// FilesTouched is all there is.
	Changes *ChangeRecord `json:"changes,omitempty"`
	// WorkTree (extension) is the work tree the last turn end recorded,
	// from which the next one records its own with only what changed.
	WorkTree *WorkTreeRecord `json:"work_tree,omitempty"`
	// TurnEnds (extension) are the turn ends whose work tree was recorded
	// when the turn ended but whose step (the transcript, prompts and
	// usage, the commit on the shadow branch) is still to be written, in
	// order (see PendingTurnEnd).
	TurnEnds []PendingTurnEnd `json:"pending_turn_ends,omitempty"`
}

// WorkTreeRecord is a tree a turn end made of the work tree: HEAD's tree
// with the paths git status reported (Dirty) as they were on disk.
type WorkTreeRecord struct {
	Head  string   `json:"head"`
	Tree  string   `json:"tree"`
	Dirty []string `json:"dirty,omitempty"`
}

// PendingTurnEnd is a turn end saved in two halves: at the turn-end hook,
// the work tree as it stood then (its blobs and tree are written, and this
// record is saved with the state); afterwards, by a process of its own, the
// transcript of the turn, its analysis and the step commit that joins the
// two. Whatever reads the session's steps completes the pending ones
// first.
type PendingTurnEnd struct {
	// ID names the record (and stands for its step until it is written:
	// a user edit measured against it is Since "pending:<ID>").
	ID string `json:"id"`
	// TurnID is the turn that ended.
	TurnID string `json:"turn_id,omitempty"`
	// Time is when the turn ended.
	Time time.Time `json:"time"`
	// Head is HEAD then; Tree the work tree then: HEAD's tree with the
	// dirty paths recorded, without entire's metadata. Empty when the
	// turn changed no file (NoStep): only the transcript's analysis
	// moves on.
	Head   string `json:"head"`
	Tree   string `json:"tree,omitempty"`
	NoStep bool   `json:"no_step,omitempty"`
	// Files are the paths the turn's step records (files_touched).
	Files []string `json:"files,omitempty"`
	// Agent, TranscriptPath and Cwd are the turn-end hook's; Size is the
	// transcript's size when the hook ran: a human prompt starting past
	// it opens the next turn.
	Agent          string `json:"agent"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	Size           int64  `json:"transcript_size"`
	// FinalAnswer is the turn's final assistant text as the client sent
	// it (HasFinalAnswer: the payload had the field).
	FinalAnswer    string `json:"final_answer,omitempty"`
	HasFinalAnswer bool   `json:"has_final_answer,omitempty"`
	// Attribution is the turn start's measurement of the user's lines,
	// recorded with the step.
	Attribution *PromptAttribution `json:"attribution,omitempty"`
	// CheckpointIDs are the checkpoints condensed during the turn (the
	// agent committed), whose transcripts get the turn's end.
	CheckpointIDs []string `json:"checkpoint_ids,omitempty"`
	// Failures counts the attempts to write the step that failed.
	Failures int `json:"failures,omitempty"`
}

// PendingSince is the UserEdit.Since of an edit measured against a
// pending turn end's work tree, until its step is written.
func PendingSince(id string) string { return "pending:" + id }

// ChangeRecord is who changed which work-tree paths of a session since its
// last condensation. A rewind changes only the paths some session's turns
// changed; the user's edits between turns are measured at each turn start
// (checkpoint.MeasureEdits).
type ChangeRecord struct {
	// Turns are the paths that a recorded turn (prompt to Stop) changed,
	// shell commands included, sorted.
	Turns []string `json:"turns,omitempty"`
	// User are the paths the user changed between turns, sorted by path,
	// one entry per path: the latest measurement.
	User []UserEdit `json:"user,omitempty"`
}

// UserEdit is a path whose work-tree state differed, at a turn start, from
// the newest checkpoint of the session's shadow branch.
type UserEdit struct {
	Path string `json:"path"`
	// TurnID is the turn at whose start the edit was measured.
	TurnID string `json:"turn_id,omitempty"`
	// Since is the checkpoint (shadow-branch commit) measured against, ""
	// for HEAD when the branch had none: the edit came after it.
	Since string `json:"since,omitempty"`
}

// AddUser records the user's edits measured at a turn start, replacing
// the earlier measurements of the same paths.
func (c *ChangeRecord) AddUser(edits []UserEdit) {
	if len(edits) == 0 {
		return
	}
	byPath := make(map[string]UserEdit, len(c.User)+len(edits))
	for _, e := range c.User {
		byPath[e.Path] = e
	}
	for _, e := range edits {
		byPath[e.Path] = e
	}
	c.User = c.User[:0]
	for _, e := range byPath {
		c.User = append(c.User, e)
	}
	sort.Slice(c.User, func(i, j int) bool { return c.User[i].Path < c.User[j].Path })
}

// Condensed returns the record after a condensation that left the paths
// remaining uncommitted: their turn changes stay, everything else goes
// (the next turn start measures the user's uncommitted edits again). nil
// stays nil.
func (c *ChangeRecord) Condensed(remaining []string) *ChangeRecord {
	if c == nil {
		return nil
	}
	keep := make(map[string]bool, len(remaining))
	for _, p := range remaining {
		keep[p] = true
	}
	out := &ChangeRecord{}
	for _, p := range c.Turns {
		if keep[p] {
			out.Turns = append(out.Turns, p)
		}
	}
	return out
}

// PromptAttribution is the per-step line attribution of SPEC 3.3.
type PromptAttribution struct {
	CheckpointNumber  int            `json:"checkpoint_number"`
	UserLinesAdded    int            `json:"user_lines_added"`
	UserLinesRemoved  int            `json:"user_lines_removed"`
	AgentLinesAdded   int            `json:"agent_lines_added"`
	AgentLinesRemoved int            `json:"agent_lines_removed"`
	UserAddedPerFile  map[string]int `json:"user_added_per_file,omitempty"`
	// UserBlobs are the edited text files as the turn start found them on
	// disk, path to blob ("" for a deleted file): the person's versions
	// in the chain a condensation attributes lines over (Entire-only).
	UserBlobs map[string]string `json:"user_blobs,omitempty"`
	// MeasuredAt is when the turn start measured the edits (Entire-only).
	MeasuredAt time.Time `json:"measured_at,omitzero"`
	// StepFiles are the paths the step changed (the turn's, as its end
	// found them), and ScopePrompts the prompts of the checkpoint scope so
	// far, as the step's prompt file holds them: a condensation follows the
	// step without reading its tree where nothing else changed (Entire-only).
	StepFiles    []string `json:"step_files,omitempty"`
	ScopePrompts int      `json:"scope_prompts,omitempty"`
}

// TranscriptCursor is the position up to which the live transcript has been
// consumed. Its meaning belongs to the strategy that writes it; this package
// only stores it.
type TranscriptCursor struct {
	// Entries is the number of complete entries (JSONL lines, or messages
	// for Gemini) consumed.
	Entries int `json:"entries"`
	// Offset is the byte offset just after the last consumed entry.
	Offset int64 `json:"offset"`
	// LastID is the ID (UUID / message ID) of the last consumed entry.
	LastID string `json:"last_id,omitempty"`
}

// legacyFields are 0.4.x keys that are read and migrated but not written.
type legacyFields struct {
	CondensedTranscriptLines int `json:"condensed_transcript_lines"`
	TranscriptLinesAtStart   int `json:"transcript_lines_at_start"`
}

// Decode parses a state file and migrates it: the deprecated
// condensed_transcript_lines / transcript_lines_at_start become
// checkpoint_transcript_start (when that is 0), attribution_base_commit is
// backfilled from base_commit, and the phase is normalised. Malformed JSON
// is an error, never a panic.
func Decode(data []byte) (*State, error) {
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("parse session state: %w", err)
	}
	var legacy legacyFields
	if err := json.Unmarshal(data, &legacy); err != nil {
		return nil, fmt.Errorf("parse session state: %w", err)
	}
	if st.CheckpointTranscriptStart == 0 {
		switch {
		case legacy.CondensedTranscriptLines > 0:
			st.CheckpointTranscriptStart = legacy.CondensedTranscriptLines
		case legacy.TranscriptLinesAtStart > 0:
			st.CheckpointTranscriptStart = legacy.TranscriptLinesAtStart
		}
	}
	if st.AttributionBaseCommit == "" {
		st.AttributionBaseCommit = st.BaseCommit
	}
	st.Phase = NormalizePhase(string(st.Phase))
	return &st, nil
}

// Encode returns st as 2-space indented JSON with a trailing newline.
func Encode(st *State) ([]byte, error) {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode session state: %w", err)
	}
	return append(data, '\n'), nil
}

// ValidateID checks that a session ID can be used as a file name and in
// a commit trailer: non-empty, no "/" or "\", no "..", no leading ".", no
// control character (a newline would forge trailer lines, an escape would
// drive the terminal that shows it) and valid UTF-8. The error wraps
// ErrInvalidID.
func ValidateID(id string) error {
	if i := strings.IndexFunc(id, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%w: %q contains a control character", ErrInvalidID, id)
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("%w: %q is not UTF-8", ErrInvalidID, id)
	}
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", ErrInvalidID)
	case strings.ContainsAny(id, `/\`):
		return fmt.Errorf("%w: %q contains a path separator", ErrInvalidID, id)
	case strings.HasPrefix(id, "."):
		return fmt.Errorf("%w: %q starts with a dot", ErrInvalidID, id)
	case strings.Contains(id, ".."):
		return fmt.Errorf("%w: %q contains ..", ErrInvalidID, id)
	case strings.ContainsRune(id, 0):
		return fmt.Errorf("%w: %q contains NUL", ErrInvalidID, id)
	}
	return nil
}
