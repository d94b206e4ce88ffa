package agent

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// longText returns a text of about n bytes with every kind of JSON escape
// in it once it is marshalled (quotes, backslashes, controls, non-ASCII,
// an astral rune).
func longText(n int) string {
	const piece = "line \"quoted\" \\ back\tslash\r\n ünï 😀 \x01 </tag> &amp; "
	return strings.Repeat(piece, n/len(piece)+1)
}

func TestDecodeJSONValueInPlaceMatchesDecodeJSONValue(t *testing.T) {
	t.Parallel()
	long := longText(hugeString + 1000)
	marshalled := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	lit := string(marshalled(long)) // long as a JSON literal, quotes included
	cases := map[string][]byte{
		"string":         marshalled(long),
		"object":         marshalled(map[string]any{"stdout": long, "stderr": "", "interrupted": false, "n": 12.5}),
		"nested":         marshalled(map[string]any{"file": map[string]any{"content": long, "lines": []any{"a", long + "x"}}}),
		"short":          marshalled(map[string]any{"stdout": "short"}),
		"escaped":        []byte(`{"a":"` + strings.Repeat(`\u00e9\ud83d\ude00\ud800x\/\b\f`, hugeString/30) + `"}`),
		"lone surrogate": []byte(`"` + strings.Repeat(`\udc00\ud800\u0041`, hugeString/18+1) + `"`),
		"long key":       []byte(`{"` + strings.Repeat("k", hugeString+1) + `":1}`),
		"invalid":        []byte(`{"a":"` + strings.Repeat("x", hugeString+1) + `"`),
		// A short string that reads like a placeholder of the structure
		// stays itself, and does not take a long string's place.
		"placeholder text":  []byte(`{"a":` + lit + `,"b":"\u0000entire-long-string-0\u0000"}`),
		"placeholder again": []byte(`{"a":` + lit + `,"a":"\u0000entire-long-string-0\u0000"}`),
		// Hostile literals: no panic, the same value or error.
		"truncated escape":   []byte(`{"a":` + lit[:len(lit)-1] + `\u12"}`),
		"trailing backslash": []byte(`{"a":` + lit[:len(lit)-1] + `\`),
		"invalid utf-8":      []byte(`{"a":` + lit[:len(lit)-1] + "\xff\xfe\xc3" + `"}`),
		"surrogate at end":   []byte(`[` + lit[:len(lit)-1] + `\ud800"]`),
		"truncated pair":     []byte(`[` + lit[:len(lit)-1] + `\ud800\udc"]`),
		"high high low":      []byte(`[` + lit[:len(lit)-1] + `\ud800\ud800\udc00"]`),
		"control":            []byte(`{"a":` + lit[:len(lit)-1] + "\x01" + `"}`),
	}
	for name, raw := range cases {
		want, wantErr := DecodeJSONValue(raw)
		got, gotErr := DecodeJSONValueInPlace(bytes.Clone(raw))
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: error %v, want %v", name, gotErr, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the value differs from DecodeJSONValue's", name)
		}
	}
}

func TestDecodeHookInputSetsAsideALargeToolResponse(t *testing.T) {
	t.Parallel()
	long := longText(largeMember + 1000)
	payload := map[string]any{
		"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input":    map[string]any{"command": "make"},
		"tool_response": map[string]any{"stdout": long, "stderr": "", "interrupted": false},
		"extra":         []any{1, "two"},
	}
	data, _ := json.Marshal(payload)
	in, err := DecodeHookInput(HookType("post-tool"), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	wantResp, _ := json.Marshal(payload["tool_response"])
	if !bytes.Equal(in.ToolResponse, wantResp) || string(in.ToolInput) != `{"command":"make"}` {
		t.Errorf("tool fields: %d bytes of response, input %s", len(in.ToolResponse), in.ToolInput)
	}
	if in.SessionID != "s1" || in.ToolName != "Bash" || in.SessionRef != "/tmp/t.jsonl" {
		t.Errorf("fields: %+v", in)
	}
	if _, kept := in.RawData["tool_response"]; kept || in.RawData["extra"] == nil || in.RawData["tool_input"] == nil {
		t.Errorf("RawData keys: %v", in.RawData)
	}
	// A repeated key: the last wins, as encoding/json has it.
	dup := append([]byte(`{"tool_response":"first","session_id":"s0",`), data[1:]...)
	in, err = DecodeHookInput(HookType("post-tool"), bytes.NewReader(dup))
	if err != nil || !bytes.Equal(in.ToolResponse, wantResp) || in.SessionID != "s1" {
		t.Errorf("repeated keys: %v %d %q", err, len(in.ToolResponse), in.SessionID)
	}
}

func TestValidJSONIsJSONValid(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 70<<10)
	for _, s := range []string{
		`{"a":"` + long + `"}`, `{"a":"` + long + `\u00e9\n"}`, `{"a":"` + long + `\u00g9"}`, `{"a":"` + long + `\x"}`,
		`{"a":"` + long + "\x01" + `"}`, `{"a":"` + long + "\xff" + `"}`, `{"a":"` + long + `\"}`, `{"a":"` + long + `\u12"}`,
		`{"a":"` + long + `"`, `{"a" "` + long + `"}`, `["` + long + `",1,]`, `"` + long + `"`, `{"a":1}`, `{`,
	} {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.20q...%q) = %v, json.Valid says %v", s, s[len(s)-12:], got, want)
		}
	}
}

// stringEndByEscapes is stringEnd the slow way: past every escape in turn.
func stringEndByEscapes(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// FuzzStringEnd: jumping from quote to quote finds the end of a string
// literal where walking every escape does.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, `"a\\"`, `"a\\\"b"x`, `"\\\\\\"`, `"unterminated\"`, `"\n\t\u0022"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' {
			return
		}
		if got, want := stringEnd(data, 0), stringEndByEscapes(data, 0); got != want {
			t.Fatalf("stringEnd(%q) = %d, want %d", data, got, want)
		}
	})
}

// validString agrees with json.Valid on every string literal.
func FuzzValidString(f *testing.F) {
	for _, s := range []string{``, `a`, `\n`, `\"`, `\u00e9`, `\u00g9`, `\x`, "a\x01b", "12345678\x1f", `ab"cd`, `\\"`, `\`, `\u12`, "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := []byte(`"` + s + `"`)
		if got, want := validString(lit), json.Valid(lit); got != want {
			t.Fatalf("validString(%q) = %v, json.Valid = %v", lit, got, want)
		}
	})
}
