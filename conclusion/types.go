package conclusion

import "time"

// Status is the outcome a subagent reports for its task. The vocabulary is
// closed: StatusSuccess, StatusPartial, StatusFailed and StatusBlocked. The
// empty Status means "not stated"; Enrich replaces it with a default derived
// from the task's TaskStatus.
type Status string

// The four statuses a subagent may report.
const (
	StatusSuccess Status = "success"
	StatusPartial Status = "partial"
	StatusFailed  Status = "failed"
	StatusBlocked Status = "blocked"
)

// Conclusion is what a subagent concluded about its task, as parsed from its
// sentinel block (or synthesized from its output) plus software-owned
// metadata.
//
// It is stored as conclusion.json in checkpoint metadata. The JSON keys are
// part of that on-disk format and do not change:
//
//	status       string    always present; "" when the subagent stated none
//	summary      string    always present
//	artifacts    []string  omitted when empty
//	memory_refs  []string  omitted when empty
//	follow_up    string    omitted when empty
//	confidence   number    in [0,1]; omitted when 0 (0 means "not stated")
//	synthesized  bool      omitted when false
//	captured_at  string    RFC 3339 (UTC from Enrich); omitted when zero
//	warnings     []string  omitted when empty
//
// A Conclusion returned by Parse or Enrich always encodes with encoding/json
// (confidence is never NaN or infinite).
type Conclusion struct {
	// Status is the reported outcome, normalized to the Status vocabulary.
	Status Status `json:"status"`
	// Summary is the subagent's account of what it did, trimmed. When the
	// block could not be read as YAML it is the block's raw text.
	Summary string `json:"summary"`
	// Artifacts are paths, URLs or other pointers the subagent produced;
	// never blank, but not trimmed.
	Artifacts []string `json:"artifacts,omitempty"`
	// MemoryRefs are note keys or other memory ids the subagent relied on or
	// wrote; never blank, but not trimmed.
	MemoryRefs []string `json:"memory_refs,omitempty"`
	// FollowUp says what remains to be done, trimmed; empty when nothing.
	FollowUp string `json:"follow_up,omitempty"`
	// Confidence is the subagent's confidence in [0,1]; 0 means not stated.
	Confidence float64 `json:"confidence,omitempty"`
	// Synthesized is true when no block was found and the conclusion was
	// derived from the task's output or error instead.
	Synthesized bool `json:"synthesized,omitempty"`
	// CapturedAt is when Enrich built the conclusion; zero from Parse.
	CapturedAt time.Time `json:"captured_at,omitzero"`
	// Warnings describe what was malformed, missing or out of range in the
	// block, in the order the checks ran. Nil when there is nothing to say.
	Warnings []string `json:"warnings,omitempty"`
}

// TaskStatus is the lifecycle state of a subagent task as the hooks see it.
type TaskStatus string

// Task lifecycle states. Only TaskCompleted, TaskFailed and TaskCancelled
// are terminal.
const (
	TaskPending   TaskStatus = "pending"
	TaskRunning   TaskStatus = "running"
	TaskCompleted TaskStatus = "completed"
	TaskFailed    TaskStatus = "failed"
	TaskCancelled TaskStatus = "cancelled"
)

// Task is the record of one subagent task, filled by the hooks from what the
// agent reports. Enrich and FormatForParent read it; Enrich also fills
// ProjectID and ProjectName. The zero value is a task with no metadata.
//
// The JSON keys are: id, engine, parent_session_id, project_path,
// project_id, project_name, work_dir, started_at, ended_at, status, output,
// output_tail, error, exit_code and conclusion; all but id, engine and status
// are omitted when empty or zero.
type Task struct {
	// ID identifies the task: the tool use ID of the call that started the
	// subagent, or the subagent's own ID when the agent reports one.
	ID string `json:"id"`
	// Engine is the name of the agent that ran the task, e.g. "claude-code".
	Engine string `json:"engine"`
	// ParentSessionID is the session of the agent that delegated the task.
	ParentSessionID string `json:"parent_session_id,omitempty"`
	// ProjectPath is the canonical path of the project (repository root).
	ProjectPath string `json:"project_path,omitempty"`
	// ProjectID is the project's registry id, set by Enrich's resolver.
	ProjectID string `json:"project_id,omitempty"`
	// ProjectName is the project's display name; Enrich fills it from the
	// resolver or from the last element of ProjectPath.
	ProjectName string `json:"project_name,omitempty"`
	// WorkDir is the directory the subagent ran in, when known.
	WorkDir string `json:"work_dir,omitempty"`
	// StartedAt is when the subagent started; zero when unknown.
	StartedAt time.Time `json:"started_at,omitzero"`
	// EndedAt is when the subagent stopped; zero while it runs or when
	// unknown.
	EndedAt time.Time `json:"ended_at,omitzero"`
	// Status is the task's lifecycle state.
	Status TaskStatus `json:"status"`
	// Output is the subagent's final output (its last message); it may have
	// been cut short by whoever recorded it.
	Output string `json:"output,omitempty"`
	// OutputTail is the last part of the output, kept separately so that the
	// end (where the conclusion block sits) survives when Output was cut.
	OutputTail string `json:"output_tail,omitempty"`
	// Error is the failure reported for the task, if any.
	Error string `json:"error,omitempty"`
	// ExitCode is the task's exit code; nil when there is none.
	ExitCode *int `json:"exit_code,omitempty"`
	// Conclusion is the captured conclusion; nil until one is captured.
	Conclusion *Conclusion `json:"conclusion,omitempty"`
}
