package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/entirecli/entire/atomicfile"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/settings"
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
}

// apply writes e into the settings file at path, creating it (and its
// directory) when missing. With onlyPresent, a key is written only if the
// file already has it: this is how a local file's override is brought in
// line with what was just written to the project file. It reports whether
// the file changed. A file that is not valid settings is an error and is
// left untouched.
func (e settingsEdit) apply(path string, onlyPresent, dryRun bool) (bool, error) {
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read settings %s: %w", path, err)
	}
	if !exists && onlyPresent {
		return false, nil
	}
	obj := &agent.Object{}
	if exists {
		if _, err := settings.LoadFile(path); err != nil {
			return false, fmt.Errorf("%w (fix or remove the file, then run the command again)", err)
		}
		if obj, err = agent.ParseObject(data); err != nil {
			return false, fmt.Errorf("parse settings %s: %w", path, err)
		}
	}
	set := func(o *agent.Object, key string, v any) {
		if _, has := o.Get(key); onlyPresent && !has {
			return
		}
		raw, _ := json.Marshal(v) // strings, bools and plain values only
		o.Set(key, raw)
	}
	if e.Strategy != nil {
		set(obj, "strategy", *e.Strategy)
	}
	if e.Enabled != nil {
		set(obj, "enabled", *e.Enabled)
	}
	if e.LocalDev != nil {
		set(obj, "local_dev", *e.LocalDev)
	}
	if e.Telemetry != nil {
		set(obj, "telemetry", *e.Telemetry)
	}
	if len(e.Options) > 0 {
		opts := &agent.Object{}
		if raw, ok := obj.Get("strategy_options"); ok {
			if opts, err = agent.ParseObject(raw); err != nil {
				return false, fmt.Errorf("parse settings %s: strategy_options: %w", path, err)
			}
		}
		before := string(opts.Compact())
		for _, k := range slices.Sorted(maps.Keys(e.Options)) {
			set(opts, k, e.Options[k])
		}
		if string(opts.Compact()) != before {
			obj.SetObject("strategy_options", opts)
		}
	}
	out := append(obj.Indent("  "), '\n')
	if exists && string(out) == string(data) {
		return false, nil
	}
	if dryRun {
		return true, nil
	}
	if err := atomicfile.Write(path, out, 0o644); err != nil {
		return false, err
	}
	return true, nil
}
