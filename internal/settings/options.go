package settings

import (
	"encoding/json"
	"math"
	"time"
)

// Keys of strategy_options read by the accessors below. Nested keys are
// objects: "summarize": {"enabled": true}, "redaction": {"patterns": [...],
// "allow": [...]}.
const (
	OptPushSessions       = "push_sessions"
	OptCheckpointRemote   = "checkpoint_remote"
	OptPushTimeout        = "push_timeout"
	OptSummarize          = "summarize"
	OptHideThresholdBytes = "hide_threshold_bytes"
	OptConclusions        = "conclusions"
	OptRedaction          = "redaction"
)

// Defaults of the strategy_options accessors.
const (
	DefaultPushTimeout        = 30 * time.Second
	DefaultHideThresholdBytes = 11400
)

// StrategyName returns the configured strategy, or DefaultStrategy when the
// value is empty or not one of the known names.
func (s *Settings) StrategyName() string {
	switch s.Strategy {
	case StrategyManualCommit, StrategyAutoCommit:
		return s.Strategy
	}
	return DefaultStrategy
}

// TelemetryEnabled reports whether the user opted in to telemetry (nil means
// never asked, which is off). Effective.TelemetryEnabled also honours
// ENTIRE_TELEMETRY_OPTOUT.
func (s *Settings) TelemetryEnabled() bool {
	return s.Telemetry != nil && *s.Telemetry
}

// SetOption sets strategy_options[key] = value, creating the map if needed.
func (s *Settings) SetOption(key string, value any) {
	if s.StrategyOptions == nil {
		s.StrategyOptions = make(map[string]any)
	}
	s.StrategyOptions[key] = value
}

// PushSessions reports strategy_options.push_sessions; false disables the
// pre-push of the metadata branch. Default (absent or not a bool) true.
func (s *Settings) PushSessions() bool {
	return boolOpt(s.StrategyOptions, OptPushSessions, true)
}

// PushTimeout returns strategy_options.push_timeout, given in seconds
// (fractions allowed). Default (absent, non-positive or not a number) 30 s.
func (s *Settings) PushTimeout() time.Duration {
	f, ok := numberOpt(s.StrategyOptions[OptPushTimeout])
	if !ok || f <= 0 || f > math.MaxInt64/float64(time.Second) {
		return DefaultPushTimeout
	}
	return time.Duration(f * float64(time.Second))
}

// SummarizeEnabled reports strategy_options.summarize.enabled. Default false.
func (s *Settings) SummarizeEnabled() bool {
	sub, _ := s.StrategyOptions[OptSummarize].(map[string]any)
	return boolOpt(sub, "enabled", false)
}

// HideThresholdBytes returns strategy_options.hide_threshold_bytes, the size
// above which tool output is hidden. Default (absent, negative or not an
// integer) 11400. Zero is returned as configured.
func (s *Settings) HideThresholdBytes() int {
	f, ok := numberOpt(s.StrategyOptions[OptHideThresholdBytes])
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return DefaultHideThresholdBytes
	}
	return int(f)
}

// Conclusions reports strategy_options.conclusions. Default true.
func (s *Settings) Conclusions() bool {
	return boolOpt(s.StrategyOptions, OptConclusions, true)
}

// RedactionPatterns returns strategy_options.redaction.patterns, extra
// regular expressions to redact. Non-string elements are skipped; nil when
// absent.
func (s *Settings) RedactionPatterns() []string {
	return redactionList(s.StrategyOptions, "patterns")
}

// RedactionAllow returns strategy_options.redaction.allow, regular
// expressions of values never to redact. Non-string elements are skipped;
// nil when absent.
func (s *Settings) RedactionAllow() []string {
	return redactionList(s.StrategyOptions, "allow")
}

func redactionList(opts map[string]any, key string) []string {
	sub, _ := opts[OptRedaction].(map[string]any)
	var out []string
	switch list := sub[key].(type) {
	case []any:
		for _, v := range list {
			if str, ok := v.(string); ok {
				out = append(out, str)
			}
		}
	case []string:
		out = append(out, list...)
	}
	return out
}

func boolOpt(m map[string]any, key string, def bool) bool {
	if v, ok := m[key].(bool); ok {
		return v
	}
	return def
}

// numberOpt accepts the number types a map may hold: json.Number from
// decoding, and Go numbers set by callers.
func numberOpt(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
