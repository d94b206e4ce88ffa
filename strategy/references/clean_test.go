package references

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/entirecli/entire/renderrefs"
)

// sentinel is the line renderrefs.Write produces for ref.
func sentinel(t testing.TB, ref renderrefs.Reference) string {
	t.Helper()
	var b bytes.Buffer
	if err := renderrefs.Write(&b, ref); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// jsonLine encodes v as one compact JSON line.
func jsonLine(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCleanJSON(t *testing.T) {
	t.Parallel()
	note := sentinel(t, renderrefs.Reference{Type: "note", ID: "proj-layout", Intent: renderrefs.IntentCreated, Preview: &renderrefs.Preview{Title: "Layout <a&b>"}})
	cp := sentinel(t, renderrefs.Reference{Type: "checkpoint", ID: "a3b2c4d5e6f7"})
	tests := []struct {
		name      string
		in        any
		wantText  []string // substrings of the cleaned document
		wantRefs  []string // type/id
		unchanged bool
	}{
		{name: "no marker", in: map[string]any{"type": "user", "content": "plain"}, unchanged: true},
		{name: "tool result string", in: map[string]any{"type": "user", "message": map[string]any{"content": []any{
			map[string]any{"type": "tool_result", "content": "Saved note proj-layout.\n" + note}}}},
			wantText: []string{`"content":"Saved note proj-layout.\n"`}, wantRefs: []string{"note/proj-layout"}},
		{name: "two strings in order", in: map[string]any{"a": note + "x", "b": "y\n" + cp},
			wantText: []string{`"a":"x"`, `"b":"y\n"`}, wantRefs: []string{"note/proj-layout", "checkpoint/a3b2c4d5e6f7"}},
		{name: "mid-line mention kept", in: map[string]any{"text": "see " + renderrefs.Marker + " here"}, unchanged: true},
		{name: "malformed sentinel dropped", in: map[string]any{"text": "ok\n" + renderrefs.Marker + "{not json\n"},
			wantText: []string{`"text":"ok\n"`}},
		{name: "html characters stay literal", in: map[string]any{"text": "<b> & </b>\n" + note},
			wantText: []string{`"text":"<b> & </b>\n"`}, wantRefs: []string{"note/proj-layout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := jsonLine(t, tt.in)
			out, refs := CleanJSON(in)
			if tt.unchanged && !bytes.Equal(out, in) {
				t.Errorf("changed:\n%s\n->\n%s", in, out)
			}
			if !json.Valid(out) {
				t.Fatalf("invalid JSON: %s", out)
			}
			if bytes.Contains(out, []byte(renderrefs.Marker+"{")) {
				t.Errorf("sentinel left: %s", out)
			}
			for _, w := range tt.wantText {
				if !bytes.Contains(out, []byte(w)) {
					t.Errorf("output lacks %s:\n%s", w, out)
				}
			}
			var got []string
			for _, r := range refs {
				got = append(got, r.Type+"/"+r.ID)
			}
			if strings.Join(got, ",") != strings.Join(tt.wantRefs, ",") {
				t.Errorf("refs = %v, want %v", got, tt.wantRefs)
			}
		})
	}
}

// Keys, numbers and the other members keep their bytes: only the string
// that held the sentinel is re-encoded.
func TestCleanJSONKeepsOtherBytes(t *testing.T) {
	t.Parallel()
	note := sentinel(t, renderrefs.Reference{Type: "note", ID: "k"})
	enc, _ := json.Marshal("out\n" + note)
	in := []byte(`{"z":1.50,"esc":"\u00e9\/","x":` + string(enc) + `,"a":[true,null]}`)
	out, refs := CleanJSON(in)
	want := `{"z":1.50,"esc":"\u00e9\/","x":"out\n","a":[true,null]}`
	if string(out) != want || len(refs) != 1 {
		t.Errorf("CleanJSON = %s (%d refs), want %s", out, len(refs), want)
	}
	if again, refs := CleanJSON(out); !bytes.Equal(again, out) || refs != nil {
		t.Errorf("not idempotent: %s", again)
	}
}

func FuzzCleanJSON(f *testing.F) {
	note := sentinel(f, renderrefs.Reference{Type: "note", ID: "proj-layout"})
	f.Add(string(jsonLine(f, map[string]any{"content": "a\n" + note})))
	f.Add(`{"a":"` + renderrefs.Marker + `{\"type\":\"x\",\"id\":\"y\"}","b":"\\"}`)
	f.Add(`"unterminated ` + renderrefs.Marker)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, doc string) {
		out, refs := CleanJSON([]byte(doc))
		if json.Valid([]byte(doc)) && !json.Valid(out) {
			t.Fatalf("valid JSON became invalid: %q -> %q", doc, out)
		}
		for _, r := range refs {
			if r.Type == "" || r.ID == "" {
				t.Fatalf("reference without type or ID: %+v", r)
			}
		}
		if json.Valid([]byte(doc)) {
			if again, more := CleanJSON(out); !bytes.Equal(again, out) || len(more) != 0 {
				t.Fatalf("not idempotent: %q -> %q -> %q", doc, out, again)
			}
		}
	})
}
