package renderrefs

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtract checks that Extract never panics, leaves marker-free text
// alone, removes every sentinel line, returns only usable references and is
// idempotent.
func FuzzExtract(f *testing.F) {
	f.Add("creating task...\n" + Marker + `{"v":1,"type":"task","id":"abc"}` + "\nok")
	f.Add("see " + Marker + `{"type":"t","id":"i"}` + " mid-line")
	f.Add(Marker + `{"type":"t","id":"i"` + "\r\n" + Marker + "\n\n")
	f.Add("plain text without any marker\n")
	f.Add("\t" + Marker + `{"TYPE":"a","ID":"b","preview":{}}`)
	f.Fuzz(func(t *testing.T, text string) {
		clean, refs := Extract(text)
		if !strings.Contains(text, Marker) {
			if clean != text || refs != nil {
				t.Fatalf("marker-free text changed: %q -> %q, %v", text, clean, refs)
			}
			return
		}
		if refs != nil && len(refs) == 0 {
			t.Fatal("refs is empty but not nil")
		}
		for _, r := range refs {
			if r.Type == "" || r.ID == "" {
				t.Fatalf("extracted unusable reference %+v", r)
			}
		}
		in, out := strings.Split(text, "\n"), strings.Split(clean, "\n")
		if len(out) > len(in) {
			t.Fatalf("clean has %d lines, input %d", len(out), len(in))
		}
		for _, line := range out {
			if _, ok := sentinelPayload(line); ok {
				t.Fatalf("sentinel line survived: %q", line)
			}
		}
		again, refs2 := Extract(clean)
		if again != clean || refs2 != nil {
			t.Fatalf("not idempotent: %q -> %q, %v", clean, again, refs2)
		}
	})
}

// FuzzWriteExtract checks that whatever Write emits, Extract reads back.
func FuzzWriteExtract(f *testing.F) {
	f.Add("task", "abc", "created", "ag-1", "Fix login", "before\n", "after")
	f.Add("goal", "a\nb", "", "", "<&>", "", "")
	f.Fuzz(func(t *testing.T, typ, id, intent, agentID, title, before, after string) {
		for _, s := range []string{typ, id, intent, agentID, title} {
			if !utf8.ValidString(s) {
				return // encoding/json replaces invalid UTF-8, so no exact round trip
			}
		}
		ref := Reference{Type: typ, ID: id, Intent: intent, AgentID: agentID, Preview: &Preview{Title: title}}
		var buf bytes.Buffer
		if err := Write(&buf, ref); err != nil {
			t.Fatal(err)
		}
		if typ == "" || id == "" {
			if buf.Len() != 0 {
				t.Fatalf("wrote %q for a reference without type or id", buf.String())
			}
			return
		}
		if strings.Count(buf.String(), "\n") != 1 {
			t.Fatalf("sentinel is not one line: %q", buf.String())
		}
		if strings.Contains(before, Marker) || strings.Contains(after, Marker) {
			return
		}
		if before != "" && !strings.HasSuffix(before, "\n") {
			before += "\n"
		}
		_, refs := Extract(before + buf.String() + after)
		if len(refs) != 1 {
			t.Fatalf("got %d refs, want 1", len(refs))
		}
		got := refs[0]
		if got.V != 1 || got.Type != typ || got.ID != id || got.Intent != intent ||
			got.AgentID != agentID || got.Preview == nil || got.Preview.Title != title {
			t.Fatalf("round trip: got %+v, want %+v", got, ref)
		}
	})
}
