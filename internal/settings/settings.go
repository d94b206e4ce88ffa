package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/internal/atomicfile"
)

// File names and locations, relative to the repository root.
const (
	// Dir is the directory that holds Entire's files in the work tree.
	Dir = ".entire"
	// ProjectFile is the project settings file name inside Dir.
	ProjectFile = "settings.json"
	// LocalFile is the personal override file name inside Dir.
	LocalFile = "settings.local.json"
)

// Strategy names accepted in the "strategy" key.
const (
	StrategyManualCommit = "manual-commit"
	StrategyAutoCommit   = "auto-commit"
	// DefaultStrategy is used when "strategy" is empty or unknown.
	DefaultStrategy = StrategyManualCommit
)

// Settings is the content of one settings file, or the merge of both. The
// JSON keys are exactly those of Entire 0.4.x.
//
// The zero value is not the default: use Defaults. A Settings is a plain
// value; it is not safe for concurrent mutation.
type Settings struct {
	// Strategy is "manual-commit" or "auto-commit". Empty or unknown values
	// are kept as written; StrategyName resolves them to DefaultStrategy.
	Strategy string `json:"strategy"`
	// Enabled false turns agent hooks into no-ops and makes rewind, resume
	// and explain print the disabled message. Default true.
	Enabled bool `json:"enabled"`
	// LocalDev makes installed hooks call `go run ./cmd/entire/main.go`
	// instead of `entire`.
	LocalDev bool `json:"local_dev,omitempty"`
	// LogLevel is "debug", "info", "warn", "warning" or "error"; empty means
	// info. The ENTIRE_LOG_LEVEL environment variable wins (see Effective).
	LogLevel string `json:"log_level,omitempty"`
	// StrategyOptions is a free-form object. Known keys are read through
	// the typed accessors (PushSessions, CheckpointRemote, ...); unknown keys
	// are preserved on Save. Numbers decoded from files are json.Number.
	StrategyOptions map[string]any `json:"strategy_options,omitempty"`
	// Telemetry is nil when the user was never asked, which means off.
	Telemetry *bool `json:"telemetry,omitempty"`
	// Checkpoints is today's Entire's "checkpoints" block (SPEC 10.1),
	// kept as written; a local file's block replaces the project's whole.
	Checkpoints json.RawMessage `json:"checkpoints,omitempty"`
	// ExternalAgents lets entire look for external agent programs
	// (entire-agent-<name> on PATH) and run them. Only the untracked
	// local file can grant it (a committed file must not make every
	// clone run what is on its PATH): in the project file it is kept as
	// written and means nothing.
	ExternalAgents bool `json:"external_agents,omitempty"`

	// optionFiles maps each strategy_options key to the file that set it
	// last (relative to the repository root), filled by Load.
	optionFiles map[string]string
	// Unreadable is the error of a load that failed: the settings are
	// then the defaults, and whatever must fail closed (where checkpoint
	// data goes) does. Set by LoadOrDefaults; never saved.
	Unreadable error `json:"-"`
}

// OptionFile returns the settings file, relative to the repository root
// (".entire/settings.json" or ".entire/settings.local.json"), that set the
// strategy_options key; "" when no file did (set by a caller, or absent).
func (s *Settings) OptionFile(key string) string { return s.optionFiles[key] }

// ProjectRel and LocalRel are the settings files' paths relative to the
// repository root, slash-separated, as OptionFile returns them.
const (
	ProjectRel = Dir + "/" + ProjectFile
	LocalRel   = Dir + "/" + LocalFile
)

// Defaults returns the settings used when no file exists: strategy
// manual-commit, enabled.
func Defaults() *Settings {
	return &Settings{Strategy: DefaultStrategy, Enabled: true}
}

// ProjectPath returns the path of the project settings file of repoRoot.
func ProjectPath(repoRoot string) string {
	return filepath.Join(repoRoot, Dir, ProjectFile)
}

// LocalPath returns the path of the local settings file of repoRoot.
func LocalPath(repoRoot string) string {
	return filepath.Join(repoRoot, Dir, LocalFile)
}

// fileSettings is one file as written, with presence preserved so that the
// merge can tell "absent" from "false".
type fileSettings struct {
	Strategy        *string         `json:"strategy"`
	Enabled         *bool           `json:"enabled"`
	LocalDev        *bool           `json:"local_dev"`
	LogLevel        *string         `json:"log_level"`
	StrategyOptions map[string]any  `json:"strategy_options"`
	Telemetry       *bool           `json:"telemetry"`
	Checkpoints     json.RawMessage `json:"checkpoints"`
	ExternalAgents  *bool           `json:"external_agents"`
}

// decodeStrict decodes one settings document, rejecting unknown top-level
// keys and trailing data.
func decodeStrict(data []byte) (*fileSettings, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var fs fileSettings
	if err := dec.Decode(&fs); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return &fs, nil
}

// readFile reads and strictly decodes path. A missing file returns an error
// satisfying errors.Is(err, fs.ErrNotExist).
func readFile(path string) (*fileSettings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read settings %s: %w", path, err)
	}
	f, err := decodeStrict(data)
	if err != nil {
		return nil, fmt.Errorf("parse settings %s: %w", path, err)
	}
	return f, nil
}

// apply overlays the fields present in f onto s, following the 0.4.x merge
// rules: strategy and log_level only when non-empty; enabled, local_dev and
// telemetry when present; strategy_options key by key (shallow).
func (s *Settings) apply(f *fileSettings, file string) {
	if f.Strategy != nil && *f.Strategy != "" {
		s.Strategy = *f.Strategy
	}
	if f.LogLevel != nil && *f.LogLevel != "" {
		s.LogLevel = *f.LogLevel
	}
	if f.Enabled != nil {
		s.Enabled = *f.Enabled
	}
	if f.LocalDev != nil {
		s.LocalDev = *f.LocalDev
	}
	if f.Telemetry != nil {
		v := *f.Telemetry
		s.Telemetry = &v
	}
	if len(f.StrategyOptions) > 0 && s.StrategyOptions == nil {
		s.StrategyOptions = make(map[string]any, len(f.StrategyOptions))
	}
	for k, v := range f.StrategyOptions {
		s.StrategyOptions[k] = v
		if file != "" {
			if s.optionFiles == nil {
				s.optionFiles = map[string]string{}
			}
			s.optionFiles[k] = file
		}
	}
	if f.ExternalAgents != nil && (file == LocalRel || file == "") {
		s.ExternalAgents = *f.ExternalAgents
	}
	if len(f.Checkpoints) > 0 && string(f.Checkpoints) != "null" {
		s.Checkpoints = append(json.RawMessage(nil), f.Checkpoints...)
	}
}

// LoadFile reads one settings file over Defaults (so absent keys keep their
// default). A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist); unknown top-level keys, malformed JSON and
// wrongly typed values are errors.
func LoadFile(path string) (*Settings, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	s := Defaults()
	s.apply(f, "")
	return s, nil
}

// Parse is LoadFile of data already read from the settings file at path
// (named in the error): a caller that edits the file's text checks the
// very bytes it edits.
func Parse(path string, data []byte) (*Settings, error) {
	f, err := decodeStrict(data)
	if err != nil {
		return nil, fmt.Errorf("parse settings %s: %w", path, err)
	}
	s := Defaults()
	s.apply(f, "")
	return s, nil
}

// Load returns the merged settings of repoRoot: Defaults, then the project
// file, then the local file, field by field. Missing files are skipped. Any
// other read or decode error of either file is returned (with a nil
// Settings); hooks then treat Entire as enabled with the default strategy.
func Load(repoRoot string) (*Settings, error) {
	s := Defaults()
	for _, p := range []struct{ path, rel string }{
		{ProjectPath(repoRoot), ProjectRel},
		{LocalPath(repoRoot), LocalRel},
	} {
		f, err := readFile(p.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		s.apply(f, p.rel)
	}
	return s, nil
}

// LoadOrDefaults is Load for callers that go on with the defaults when the
// files cannot be read: the returned settings then carry the error in
// Unreadable, so that where checkpoint data goes fails closed.
func LoadOrDefaults(repoRoot string) *Settings {
	s, err := Load(repoRoot)
	if err != nil {
		s = Defaults()
		s.Unreadable = err
	}
	return s
}

// Exists reports whether repoRoot has a project or a local settings file.
func Exists(repoRoot string) bool {
	for _, p := range []string{ProjectPath(repoRoot), LocalPath(repoRoot)} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// Enabled is the cheap check for the hook fast path: it reports the merged
// "enabled" value of repoRoot. Any read or decode error counts as enabled
// (SPEC 1.1), and so do missing files.
func Enabled(repoRoot string) bool {
	s, err := Load(repoRoot)
	if err != nil {
		return true
	}
	return s.Enabled
}

// Marshal returns s as 2-space indented JSON with a trailing newline, the
// format Save writes.
func Marshal(s *Settings) ([]byte, error) {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode settings: %w", err)
	}
	return append(data, '\n'), nil
}

// Save writes s to path as 2-space JSON with a trailing newline, mode 0644,
// atomically (temp file in the same directory, fsync, rename). The parent
// directory is created (0755) if missing. Save writes every field of s, so
// saving merged settings to the local file pins all of them there.
func Save(path string, s *Settings) error {
	data, err := Marshal(s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create settings dir: %w", err)
	}
	return atomicfile.Write(path, data, 0o644)
}

// ExternalAgentsAllowed reports whether the local settings file of
// repoRoot (and only it) sets external_agents; a missing or unreadable
// file allows nothing.
func ExternalAgentsAllowed(repoRoot string) bool {
	f, err := readFile(LocalPath(repoRoot))
	return err == nil && f.ExternalAgents != nil && *f.ExternalAgents
}

// Checkpoint layouts, as checkpoints.primary.type names them (SPEC 10.1).
const (
	CheckpointsGitBranch = "git-branch"
	CheckpointsGitRefs   = "git-refs"
)

// CheckpointsType returns checkpoints.primary.type: CheckpointsGitBranch
// when the block or the key is absent (what an absent block means to
// Entire), the value as written otherwise. A block that is not an object
// of that shape is an error naming it; a type this version does not know
// is returned as written, for the caller to refuse (CheckpointsKnown).
func (s *Settings) CheckpointsType() (string, error) {
	if len(s.Checkpoints) == 0 || string(s.Checkpoints) == "null" {
		return CheckpointsGitBranch, nil
	}
	var block struct {
		Primary *struct {
			Type *string `json:"type"`
		} `json:"primary"`
	}
	if err := json.Unmarshal(s.Checkpoints, &block); err != nil {
		return "", fmt.Errorf("settings \"checkpoints\" is not {\"primary\": {\"type\": ...}}: %w", err)
	}
	if block.Primary == nil || block.Primary.Type == nil || *block.Primary.Type == "" {
		return CheckpointsGitBranch, nil
	}
	return *block.Primary.Type, nil
}

// CheckpointsKnown reports whether t is a checkpoints.primary.type this
// version reads and writes.
func CheckpointsKnown(t string) bool {
	return t == CheckpointsGitBranch || t == CheckpointsGitRefs
}

// SetCheckpointsType sets checkpoints.primary.type to t, keeping the other
// keys of the block (and of "primary") as written.
func (s *Settings) SetCheckpointsType(t string) error {
	block := map[string]any{}
	if len(s.Checkpoints) > 0 && string(s.Checkpoints) != "null" {
		if err := json.Unmarshal(s.Checkpoints, &block); err != nil {
			return fmt.Errorf("settings \"checkpoints\": %w", err)
		}
	}
	primary, _ := block["primary"].(map[string]any)
	if primary == nil {
		primary = map[string]any{}
	}
	primary["type"] = t
	block["primary"] = primary
	data, err := json.Marshal(block)
	if err != nil {
		return fmt.Errorf("encode settings \"checkpoints\": %w", err)
	}
	s.Checkpoints = data
	return nil
}
