package renderrefs

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func envWith(value string, set bool) func(string) string {
	return func(key string) string {
		if key == EnvVar && set {
			return value
		}
		return ""
	}
}

func TestEnabled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string
		set   bool
		want  bool
	}{
		{"unset", "", false, false},
		{"exactly one", "1", true, true},
		{"empty", "", true, false},
		{"true", "true", true, false},
		{"padded", " 1", true, false},
		{"trailing newline", "1\n", true, false},
		{"zero", "0", true, false},
		{"eleven", "11", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Enabled(envWith(tt.value, tt.set)); got != tt.want {
				t.Errorf("Enabled(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
}

func TestEnabledNilUsesProcessEnv(t *testing.T) {
	t.Setenv(EnvVar, "1")
	if !Enabled(nil) {
		t.Fatal("Enabled(nil) = false with ENTIRE_RENDERABLE_REFS=1")
	}
	t.Setenv(EnvVar, "yes")
	if Enabled(nil) {
		t.Fatal("Enabled(nil) = true with ENTIRE_RENDERABLE_REFS=yes")
	}
}

func TestEmitGatedByEnv(t *testing.T) {
	ref := Reference{Type: "checkpoint", ID: "abc", Intent: IntentCreated}

	t.Setenv(EnvVar, "")
	var off bytes.Buffer
	if err := Emit(&off, ref); err != nil {
		t.Fatalf("Emit disabled: %v", err)
	}
	if off.Len() != 0 {
		t.Fatalf("Emit wrote %q while disabled", off.String())
	}

	t.Setenv(EnvVar, "1")
	var on bytes.Buffer
	if err := Emit(&on, ref); err != nil {
		t.Fatalf("Emit enabled: %v", err)
	}
	want := Marker + `{"v":1,"type":"checkpoint","id":"abc","intent":"created"}` + "\n"
	if on.String() != want {
		t.Fatalf("Emit wrote %q, want %q", on.String(), want)
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ref  Reference
		want string
	}{
		{
			name: "full, in struct order",
			ref: Reference{Type: "task", ID: "abc", Intent: "created", AgentID: "ag-1",
				Preview: &Preview{Title: "Fix login", Status: "draft"}},
			want: Marker + `{"v":1,"type":"task","id":"abc","intent":"created","agent_id":"ag-1","preview":{"title":"Fix login","status":"draft"}}` + "\n",
		},
		{
			name: "intent not defaulted",
			ref:  Reference{Type: "goal", ID: "g1"},
			want: Marker + `{"v":1,"type":"goal","id":"g1"}` + "\n",
		},
		{
			name: "explicit version kept",
			ref:  Reference{V: 7, Type: "goal", ID: "g1"},
			want: Marker + `{"v":7,"type":"goal","id":"g1"}` + "\n",
		},
		{
			name: "empty preview still written",
			ref:  Reference{Type: "goal", ID: "g1", Preview: &Preview{}},
			want: Marker + `{"v":1,"type":"goal","id":"g1","preview":{}}` + "\n",
		},
		{
			name: "html escaped, newline cannot split the line",
			ref:  Reference{Type: "note", ID: "a<b>&c", Preview: &Preview{Title: "one\ntwo"}},
			want: Marker + `{"v":1,"type":"note","id":"a\u003cb\u003e\u0026c","preview":{"title":"one\ntwo"}}` + "\n",
		},
		{name: "no type", ref: Reference{ID: "abc"}, want: ""},
		{name: "no id", ref: Reference{Type: "task"}, want: ""},
		{name: "empty", ref: Reference{}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := Write(&buf, tt.ref); err != nil {
				t.Fatalf("Write: %v", err)
			}
			if buf.String() != tt.want {
				t.Errorf("Write wrote\n%q\nwant\n%q", buf.String(), tt.want)
			}
		})
	}
}

type failingWriter struct{ calls int }

var errBroken = errors.New("broken pipe")

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	return 0, errBroken
}

func TestWriteReturnsWriterError(t *testing.T) {
	t.Parallel()
	w := &failingWriter{}
	err := Write(w, Reference{Type: "task", ID: "abc"})
	if !errors.Is(err, errBroken) {
		t.Fatalf("Write error = %v, want wrapping %v", err, errBroken)
	}
	if w.calls != 1 {
		t.Fatalf("Write made %d calls, want exactly 1", w.calls)
	}
}

func TestWriteSkipsWriterWhenNoID(t *testing.T) {
	t.Parallel()
	w := &failingWriter{}
	if err := Write(w, Reference{Type: "task"}); err != nil {
		t.Fatalf("Write without ID = %v, want nil", err)
	}
	if w.calls != 0 {
		t.Fatalf("Write without ID touched the writer %d times", w.calls)
	}
}

func sentinel(t *testing.T, ref Reference) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, ref); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatalf("no sentinel written for %+v", ref)
	}
	return buf.String()
}

func TestExtractRoundTrip(t *testing.T) {
	t.Parallel()
	ref := Reference{Type: "task", ID: "abc", Intent: "created", AgentID: "ag-1",
		Preview: &Preview{Title: "Fix login", Status: "draft"}}
	text := "creating task...\n" + sentinel(t, ref) + "ok\n[exit:0 | 12ms]"

	clean, refs := Extract(text)
	if want := "creating task...\nok\n[exit:0 | 12ms]"; clean != want {
		t.Errorf("clean = %q, want %q", clean, want)
	}
	if len(refs) != 1 {
		t.Fatalf("got %d refs, want 1: %+v", len(refs), refs)
	}
	got := refs[0]
	if got.V != 1 || got.Type != "task" || got.ID != "abc" || got.Intent != "created" ||
		got.AgentID != "ag-1" || got.Preview == nil || *got.Preview != *ref.Preview {
		t.Errorf("ref = %+v (preview %+v), want %+v", got, got.Preview, ref)
	}
}

func TestExtractOrderNoDedupe(t *testing.T) {
	t.Parallel()
	t1 := Reference{Type: "task", ID: "t1"}
	g1 := Reference{Type: "goal", ID: "g1"}
	text := sentinel(t, t1) + "between\n" + sentinel(t, g1) + sentinel(t, t1)
	clean, refs := Extract(text)
	if clean != "between\n" {
		t.Errorf("clean = %q, want %q", clean, "between\n")
	}
	var ids []string
	for _, r := range refs {
		ids = append(ids, r.Type+"/"+r.ID)
	}
	if got, want := strings.Join(ids, " "), "task/t1 goal/g1 task/t1"; got != want {
		t.Errorf("refs = %s, want %s", got, want)
	}
}

func TestExtract(t *testing.T) {
	t.Parallel()
	valid := Marker + `{"v":1,"type":"task","id":"x"}`
	tests := []struct {
		name      string
		text      string
		wantClean string
		wantIDs   []string
	}{
		{name: "no marker unchanged", text: "plain\noutput\n", wantClean: "plain\noutput\n"},
		{name: "empty", text: "", wantClean: ""},
		{
			name:      "mid-line mention kept",
			text:      "see " + valid + " for details\nnext",
			wantClean: "see " + valid + " for details\nnext",
		},
		{
			name:      "marker after text at line end kept",
			text:      "x" + Marker,
			wantClean: "x" + Marker,
		},
		{
			name:      "leading whitespace is still a sentinel",
			text:      "a\n \t" + valid + "\nb",
			wantClean: "a\nb",
			wantIDs:   []string{"x"},
		},
		{
			name:      "CRLF tolerated",
			text:      "a\r\n" + valid + "\r\nb\r\n",
			wantClean: "a\r\nb\r\n",
			wantIDs:   []string{"x"},
		},
		{
			name:      "trailing newline kept",
			text:      "a\n" + valid + "\n",
			wantClean: "a\n",
			wantIDs:   []string{"x"},
		},
		{
			name:      "only a sentinel",
			text:      valid,
			wantClean: "",
			wantIDs:   []string{"x"},
		},
		{
			name:      "keys case-insensitive, unknown keys ignored",
			text:      Marker + `{"TYPE":"task","Id":"y","extra":[1,2]}`,
			wantClean: "",
			wantIDs:   []string{"y"},
		},
		{
			name:      "second marker on a sentinel line is payload",
			text:      Marker + Marker + `{"type":"task","id":"z"}`,
			wantClean: "",
		},
		// The four malformed cases: each is dropped and yields no reference.
		{name: "truncated JSON", text: "real output\n" + Marker + `{"v":1,"type":"task","id":"ab` + "\nmore output", wantClean: "real output\nmore output"},
		{name: "missing id", text: "real output\n" + Marker + `{"v":1,"type":"task"}` + "\nmore output", wantClean: "real output\nmore output"},
		{name: "missing type", text: "real output\n" + Marker + `{"v":1,"id":"abc"}` + "\nmore output", wantClean: "real output\nmore output"},
		{name: "not JSON", text: "real output\n" + Marker + `not json at all` + "\nmore output", wantClean: "real output\nmore output"},
		{name: "wrong field type", text: "real output\n" + Marker + `{"v":"1","type":"task","id":"abc"}` + "\nmore output", wantClean: "real output\nmore output"},
		{name: "null payload", text: "real output\n" + Marker + `null` + "\nmore output", wantClean: "real output\nmore output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clean, refs := Extract(tt.text)
			if clean != tt.wantClean {
				t.Errorf("clean = %q, want %q", clean, tt.wantClean)
			}
			var ids []string
			for _, r := range refs {
				ids = append(ids, r.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.wantIDs, ",") {
				t.Errorf("ids = %q, want %q", ids, tt.wantIDs)
			}
			if len(tt.wantIDs) == 0 && refs != nil {
				t.Errorf("refs = %#v, want nil", refs)
			}
		})
	}
}
