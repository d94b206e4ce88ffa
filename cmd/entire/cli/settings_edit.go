package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/entirecli/entire/internal/atomicfile"

	"github.com/entirecli/entire/internal/jsonedit"
	"github.com/entirecli/entire/internal/settings"
)

// settingsEdit is a set of keys to write into one settings file. Nil
// members are left as they are. Editing a file changes only these keys and
// keeps every other key, its order and its bytes, so a local file that
// overrides one key keeps overriding only that key.
//
// (The settings package saves whole Settings values, which pins every
// default into the file; enable needs to touch single keys.)
type settingsEdit struct {
	Strategy *string
	Enabled  *bool
	LocalDev *bool
	// Telemetry false is written when the user opted out; true is never
	// written (there is no telemetry to opt in to).
	Telemetry *bool
	// Options are strategy_options keys to set (shallow).
	Options map[string]any
	// ExternalAgents true is written to the local file when an external
	// agent is enabled (only that file grants it).
	ExternalAgents *bool
	// CheckpointsType is checkpoints.primary.type, the checkpoint layout
	// (SPEC 10.1).
	CheckpointsType *string
}

// apply writes e into the settings file at path, creating it (and its
// directory) when missing. With onlyPresent, a key is written only if the
// file already has it: this is how a local file's override is brought in
// line with what was just written to the project file. It reports whether
// the file changed. A file that is not valid settings is an error and is
// left untouched.
//
// The file is edited as text (jsonedit): a key it has gets its value
// replaced where it stands, a missing key is added at the end of its object
// in the file's own layout and noted in added (nil notes nothing), so that
// `disable --uninstall` can take out exactly what enable added.
func (e settingsEdit) apply(path string, added *jsonedit.Record, onlyPresent, dryRun bool) (bool, error) {
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read settings %s: %w", path, err)
	}
	if !exists && onlyPresent {
		return false, nil
	}
	doc := jsonedit.New()
	if exists {
		if _, err := settings.Parse(path, data); err != nil {
			return false, fmt.Errorf("%w (fix or remove the file, then run the command again)", err)
		}
		if doc, err = jsonedit.Parse(data); err != nil {
			return false, fmt.Errorf("parse settings %s: %w", path, err)
		}
	}
	var setErr error
	set := func(obj []string, key string, v any) {
		raw, _ := json.Marshal(v) // strings, bools and plain values only
		at := append(slices.Clone(obj), key)
		cur, has := doc.Get(jsonedit.Keys(at)...)
		switch {
		case has && string(compactJSON(cur)) == string(raw):
		case has:
			setErr = errors.Join(setErr, doc.Replace(jsonedit.Keys(at), raw))
		case onlyPresent:
		default:
			if err := doc.Insert(jsonedit.Keys(obj), key, raw); err != nil {
				setErr = errors.Join(setErr, err)
				return
			}
			added.Member(at, raw)
		}
	}
	if e.Strategy != nil {
		set(nil, "strategy", *e.Strategy)
	}
	if e.ExternalAgents != nil {
		set(nil, "external_agents", *e.ExternalAgents)
	}
	if e.Enabled != nil {
		set(nil, "enabled", *e.Enabled)
	}
	if e.LocalDev != nil {
		set(nil, "local_dev", *e.LocalDev)
	}
	if e.Telemetry != nil {
		set(nil, "telemetry", *e.Telemetry)
	}
	if len(e.Options) > 0 {
		const opts = "strategy_options"
		if doc.Kind(opts) == 0 && !onlyPresent {
			if err := doc.Insert(nil, opts, []byte("{}")); err != nil {
				return false, fmt.Errorf("settings %s: %w", path, err)
			}
			added.Member([]string{opts}, nil)
		}
		if doc.Kind(opts) == '{' {
			for _, k := range slices.Sorted(maps.Keys(e.Options)) {
				set([]string{opts}, k, e.Options[k])
			}
		}
	}
	if e.CheckpointsType != nil {
		obj := []string{"checkpoints", "primary"}
		for i := range obj {
			if doc.Kind(jsonedit.Keys(obj[:i+1])...) == 0 && !onlyPresent {
				if err := doc.Insert(jsonedit.Keys(obj[:i]), obj[i], []byte("{}")); err != nil {
					return false, fmt.Errorf("settings %s: %w", path, err)
				}
				added.Member(obj[:i+1], nil)
			}
		}
		if doc.Kind(jsonedit.Keys(obj)...) == '{' {
			set(obj, "type", *e.CheckpointsType)
		}
	}
	if setErr != nil {
		return false, fmt.Errorf("edit settings %s: %w", path, setErr)
	}
	out := doc.Bytes()
	if !exists {
		out = append(out, '\n')
	}
	if exists && string(out) == string(data) {
		return false, nil
	}
	if dryRun {
		return true, nil
	}
	if err := atomicfile.Rewrite(path, out, 0o644); err != nil {
		return false, err
	}
	return true, nil
}

// compactJSON is raw without insignificant whitespace (raw itself when it
// is not valid JSON).
func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
