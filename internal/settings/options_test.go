package settings

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func jsonNumber(s string) json.Number { return json.Number(s) }

func parseOpts(t *testing.T, opts string) *Settings {
	t.Helper()
	f, err := decodeStrict([]byte(`{"strategy_options":` + opts + `}`))
	if err != nil {
		t.Fatalf("decode %s: %v", opts, err)
	}
	s := Defaults()
	s.apply(f, ProjectRel)
	return s
}

func TestAccessors(t *testing.T) {
	t.Parallel()
	type result struct {
		Push      bool
		Remote    string
		Timeout   time.Duration
		Summarize bool
		Hide      int
		Concl     bool
		Patterns  []string
		Allow     []string
	}
	defaults := result{Push: true, Timeout: 30 * time.Second, Hide: 11400, Concl: true}
	tests := []struct {
		name string
		opts string
		want func(r result) result
	}{
		{"empty", `{}`, func(r result) result { return r }},
		{"all set", `{"push_sessions":false,"checkpoint_remote":" backup ","push_timeout":2.5,
			"summarize":{"enabled":true},"hide_threshold_bytes":0,"conclusions":false,
			"redaction":{"patterns":["sk-[a-z]+",3],"allow":["EXAMPLE"]}}`,
			func(r result) result {
				return result{Push: false, Remote: "backup", Timeout: 2500 * time.Millisecond, Summarize: true,
					Hide: 0, Concl: false, Patterns: []string{"sk-[a-z]+"}, Allow: []string{"EXAMPLE"}}
			}},
		{"wrong types fall back", `{"push_sessions":"no","checkpoint_remote":5,"push_timeout":"30",
			"summarize":true,"hide_threshold_bytes":1.5,"conclusions":0,"redaction":["x"]}`,
			func(r result) result { return r }},
		{"out of range", `{"push_timeout":-1,"hide_threshold_bytes":-5,"checkpoint_remote":"  "}`,
			func(r result) result { return r }},
		{"huge timeout", `{"push_timeout":1e300}`, func(r result) result { return r }},
		{"int threshold", `{"hide_threshold_bytes":4096}`, func(r result) result { r.Hide = 4096; return r }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := parseOpts(t, tt.opts)
			got := result{s.PushSessions(), s.CheckpointRemoteSetting().String(), s.PushTimeout(), s.SummarizeEnabled(),
				s.HideThresholdBytes(), s.Conclusions(), s.RedactionPatterns(), s.RedactionAllow()}
			if want := tt.want(defaults); !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestAccessorsOnGoValues(t *testing.T) {
	t.Parallel()
	s := Defaults()
	s.SetOption(OptPushTimeout, 5)
	s.SetOption(OptHideThresholdBytes, int64(100))
	s.SetOption(OptRedaction, map[string]any{"allow": []string{"a"}})
	if s.PushTimeout() != 5*time.Second || s.HideThresholdBytes() != 100 ||
		!reflect.DeepEqual(s.RedactionAllow(), []string{"a"}) {
		t.Fatalf("accessors on Go values: %v %v %v", s.PushTimeout(), s.HideThresholdBytes(), s.RedactionAllow())
	}
}

func TestStrategyName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": DefaultStrategy, "auto-commit": "auto-commit", "manual-commit": "manual-commit", "shadow": DefaultStrategy,
	} {
		if got := (&Settings{Strategy: in}).StrategyName(); got != want {
			t.Errorf("StrategyName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEffective(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		env           map[string]string
		fileLevel     string
		telemetry     *bool
		wantLevel     string
		wantTelemetry bool
	}{
		{name: "defaults", wantLevel: "info"},
		{name: "file level", fileLevel: "WARN", wantLevel: "warn"},
		{name: "env wins", env: map[string]string{EnvLogLevel: "debug"}, fileLevel: "error", wantLevel: "debug"},
		{name: "blank env ignored", env: map[string]string{EnvLogLevel: "  "}, fileLevel: "error", wantLevel: "error"},
		{name: "telemetry on", telemetry: boolp(true), wantLevel: "info", wantTelemetry: true},
		{name: "telemetry opt-out env", env: map[string]string{EnvTelemetryOptOut: "1"}, telemetry: boolp(true), wantLevel: "info"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Defaults()
			s.LogLevel = tt.fileLevel
			s.Telemetry = tt.telemetry
			e := NewEffective(s, func(k string) string { return tt.env[k] })
			if got := e.LogLevel(); got != tt.wantLevel {
				t.Errorf("LogLevel = %q, want %q", got, tt.wantLevel)
			}
			if got := e.TelemetryEnabled(); got != tt.wantTelemetry {
				t.Errorf("TelemetryEnabled = %v, want %v", got, tt.wantTelemetry)
			}
		})
	}
	if got := NewEffective(nil, nil).LogLevel(); got != "info" {
		t.Errorf("nil Effective LogLevel = %q", got)
	}
}
