package checkpoint

import (
	"encoding/json"
	"time"

	"github.com/entirecli/entire/agent"
)

// Strategy names as stored in metadata and trailers.
const (
	StrategyManualCommit = "manual-commit"
	StrategyAutoCommit   = "auto-commit"
)

// File names inside a session slot of a committed checkpoint (SPEC 3.7).
const (
	MetadataFile    = "metadata.json"
	TranscriptFile  = "full.jsonl"
	LegacyLogFile   = "full.log"
	ContentHashFile = "content_hash.txt"
	PromptFile      = "prompt.txt"
	ContextFile     = "context.md"
	SummaryFile     = "summary.txt"
)

// Summary is the AI-generated summary of a checkpoint (SPEC 7.2).
type Summary struct {
	Intent    string    `json:"intent"`
	Outcome   string    `json:"outcome"`
	Learnings Learnings `json:"learnings"`
	Friction  []string  `json:"friction"`
	OpenItems []string  `json:"open_items"`
}

// Learnings groups what a session taught about the repository, the code and
// the workflow.
type Learnings struct {
	Repo     []string       `json:"repo"`
	Code     []CodeLearning `json:"code"`
	Workflow []string       `json:"workflow"`
}

// UnmarshalJSON reads learnings as SPEC 4 writes them (an object), and
// tolerates other shapes a writer may use: a list of strings is taken as
// repository learnings, anything else as none, so that a summary never
// makes its checkpoint unreadable.
func (l *Learnings) UnmarshalJSON(b []byte) error {
	type plain Learnings
	var p plain
	if err := json.Unmarshal(b, &p); err == nil {
		*l = Learnings(p)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*l = Learnings{Repo: list}
		return nil
	}
	*l = Learnings{}
	return nil
}

// CodeLearning is a finding tied to a place in the code.
type CodeLearning struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	Finding string `json:"finding"`
}

// Attribution is the line attribution computed at condensation, stored as
// initial_attribution.
type Attribution struct {
	CalculatedAt    time.Time `json:"calculated_at"`
	AgentLines      int       `json:"agent_lines"`
	HumanAdded      int       `json:"human_added"`
	HumanModified   int       `json:"human_modified"`
	HumanRemoved    int       `json:"human_removed"`
	TotalCommitted  int       `json:"total_committed"`
	AgentPercentage float64   `json:"agent_percentage"`
}

// SessionMetadata is the metadata.json of one session slot of a committed
// checkpoint, with exactly the keys of SPEC 3.7 in that order.
type SessionMetadata struct {
	CLIVersion                  string            `json:"cli_version,omitempty"`
	CheckpointID                ID                `json:"checkpoint_id"`
	SessionID                   string            `json:"session_id"`
	Strategy                    string            `json:"strategy"`
	CreatedAt                   time.Time         `json:"created_at"`
	Branch                      string            `json:"branch,omitempty"`
	CheckpointsCount            int               `json:"checkpoints_count"`
	FilesTouched                []string          `json:"files_touched"`
	Agent                       agent.AgentType   `json:"agent,omitempty"`
	TurnID                      string            `json:"turn_id,omitempty"`
	IsTask                      bool              `json:"is_task,omitempty"`
	ToolUseID                   string            `json:"tool_use_id,omitempty"`
	TranscriptIdentifierAtStart string            `json:"transcript_identifier_at_start,omitempty"`
	CheckpointTranscriptStart   int               `json:"checkpoint_transcript_start,omitempty"`
	TranscriptLinesAtStart      int               `json:"transcript_lines_at_start,omitempty"` // Deprecated: duplicate of CheckpointTranscriptStart, kept for 0.4.x readers.
	TokenUsage                  *agent.TokenUsage `json:"token_usage,omitempty"`
	Summary                     *Summary          `json:"summary,omitempty"`
	InitialAttribution          *Attribution      `json:"initial_attribution,omitempty"`
	TranscriptPath              string            `json:"transcript_path,omitempty"`
}

// SessionPaths locates the files of one session slot, as tree-absolute
// paths with a leading "/" ("" for a file that is absent).
type SessionPaths struct {
	Metadata    string `json:"metadata"`
	Transcript  string `json:"transcript"`
	Context     string `json:"context"`
	ContentHash string `json:"content_hash"`
	Prompt      string `json:"prompt"`
}

// RootMetadata is the checkpoint summary, the root metadata.json (SPEC 3.7).
type RootMetadata struct {
	CLIVersion       string            `json:"cli_version,omitempty"`
	CheckpointID     ID                `json:"checkpoint_id"`
	Strategy         string            `json:"strategy"`
	Branch           string            `json:"branch,omitempty"`
	CheckpointsCount int               `json:"checkpoints_count"`
	FilesTouched     []string          `json:"files_touched"`
	Sessions         []SessionPaths    `json:"sessions"`
	TokenUsage       *agent.TokenUsage `json:"token_usage,omitempty"`
}
