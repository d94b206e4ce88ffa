package settings

import "strings"

// Environment variables that override settings. They are read only through
// Effective, never with os.Getenv elsewhere.
const (
	// EnvLogLevel overrides "log_level".
	EnvLogLevel = "ENTIRE_LOG_LEVEL"
	// EnvTelemetryOptOut, when non-empty, turns telemetry off whatever the
	// files say.
	EnvTelemetryOptOut = "ENTIRE_TELEMETRY_OPTOUT"
)

// Effective is the merged settings with environment overrides applied: the
// one place where the resolution order env > local file > project file >
// default is implemented. Build it with NewEffective.
type Effective struct {
	*Settings
	getenv func(string) string
}

// NewEffective combines s with the environment lookup getenv (os.Getenv in
// production, a map lookup in tests). A nil s means Defaults(); a nil getenv
// means an empty environment.
func NewEffective(s *Settings, getenv func(string) string) Effective {
	if s == nil {
		s = Defaults()
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return Effective{Settings: s, getenv: getenv}
}

// LogLevel returns the configured log level text, unvalidated and lowercased:
// ENTIRE_LOG_LEVEL if non-empty, else "log_level", else "info". The logging
// package parses it (and warns about invalid values).
func (e Effective) LogLevel() string {
	if v := strings.TrimSpace(e.getenv(EnvLogLevel)); v != "" {
		return strings.ToLower(v)
	}
	if v := strings.TrimSpace(e.Settings.LogLevel); v != "" {
		return strings.ToLower(v)
	}
	return "info"
}

// TelemetryEnabled reports whether telemetry may be sent: the user opted in
// and ENTIRE_TELEMETRY_OPTOUT is empty.
func (e Effective) TelemetryEnabled() bool {
	return e.getenv(EnvTelemetryOptOut) == "" && e.Settings.TelemetryEnabled()
}
