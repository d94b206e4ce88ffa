package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	_ "github.com/entirecli/entire/agent/geminicli"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// mapValues is a valueSource (and a store) in memory.
type mapValues map[string][]byte

func (m mapValues) store(v []byte) (string, error) {
	name := plumbing.ComputeHash(plumbing.BlobObject, v).String()
	m[name] = bytes.Clone(v)
	return name, nil
}

func (m mapValues) valueSize(name string) (int, bool) {
	v, ok := m[name]
	return len(v), ok
}

func (m mapValues) appendValue(dst []byte, name string) ([]byte, error) {
	return append(dst, m[name]...), nil
}

// toolResult is a Claude Code line whose tool result holds content.
func toolResult(id int, content string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", id), "message": map[string]any{
		"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", id), "content": content}},
	}})
	return b
}

// base64ish returns n bytes of base64 alphabet, deterministic.
func base64ish(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = alphabet[x&63]
	}
	return string(b)
}

func TestExternalizeLineRoundTrip(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("b", 900)
	tests := []struct {
		name, line string
		limit      int
		moved      int // values moved out; -1: the whole line
	}{
		{"fits", `{"a":"` + big + `"}`, 2000, 0},
		{"largest first", `{"s":"` + big[:300] + `","b":"` + big + `","m":"` + big[:500] + `"}`, 1000, 1},
		{"two needed", `{"s":"` + big[:300] + `","b":"` + big + `","m":"` + big[:500] + `"}`, 700, 2},
		{"keys stay", `{"` + big + `":1,"` + big + `x":2}`, 1000, -1},
		{"escapes kept", `{"a":"` + strings.Repeat(`\"\\\n\u00e9`, 200) + `", "k" : "v"}`, 500, 1},
		{"array of values", `[1, "` + big + `", {"k": ["` + big + `x"]}]`, 400, 2},
		{"small strings only", `[` + strings.Repeat(`"ab",`, 300) + `"c"]`, 500, -1},
		{"not json", strings.Repeat(`x\"y`, 400), 500, -1},
	}
	for _, tt := range tests {
		vals := mapValues{}
		out, err := externalizeLine([]byte(tt.line), tt.limit, 64, vals.store)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(out) > tt.limit {
			t.Errorf("%s: %d bytes after, limit %d", tt.name, len(out), tt.limit)
		}
		switch {
		case tt.moved < 0:
			if _, _, ok := parseMarker(out); !ok || len(vals) != 1 || string(vals[string(out[len(markerStart):len(markerStart)+40])]) != tt.line {
				t.Errorf("%s: want the whole line moved out, got %q", tt.name, out)
			}
		case len(vals) != tt.moved:
			t.Errorf("%s: %d values moved out, want %d: %q", tt.name, len(vals), tt.moved, out)
		}
		if json.Valid([]byte(tt.line)) && !json.Valid(out) {
			t.Errorf("%s: the line is no longer JSON: %q", tt.name, out)
		}
		back, err := expandMarkers(out, vals)
		if err != nil || string(back) != tt.line {
			t.Errorf("%s: round trip gave %q (%v)", tt.name, back, err)
		}
	}
}

func TestExpandMarkersLeavesTextAlone(t *testing.T) {
	t.Parallel()
	vals := mapValues{}
	name, _ := vals.store([]byte(`"value"`))
	marker := string(blobMarker(name, 7))
	other := string(blobMarker(strings.Repeat("a", 40), 7))
	for in, want := range map[string]string{
		`{"a":` + marker + `}`:                              `{"a":"value"}`,
		`{"a":` + marker + `,"b":` + marker + `}`:           `{"a":"value","b":"value"}`,
		`{"a":"quoted: \` + marker[:len(marker)-1] + `\""}`: `{"a":"quoted: \` + marker[:len(marker)-1] + `\""}`,
		`{"a":` + other + `}`:                               `{"a":` + other + `}`,
		`{"a":"entire-blob:v1:` + name + `:x"}`:             `{"a":"entire-blob:v1:` + name + `:x"}`,
		`"entire-blob:v1:` + name[:39] + `:7"`:              `"entire-blob:v1:` + name[:39] + `:7"`,
		`"entire-blob:v1:` + other[16:56] + `:1` + marker:   `"entire-blob:v1:` + other[16:56] + `:1"value"`,
		`{"a":"entire-blob:v1:`:                             `{"a":"entire-blob:v1:`,
	} {
		got, err := expandMarkers([]byte(in), vals)
		if err != nil || string(got) != want {
			t.Errorf("expand %q = %q (%v), want %q", in, got, err, want)
		}
	}
}

func FuzzExpandMarkers(f *testing.F) {
	vals := mapValues{}
	name, _ := vals.store([]byte(`"value"`))
	f.Add([]byte(`{"a":`+string(blobMarker(name, 7))+`}`), 0)
	f.Add([]byte(`{"a":"`+strings.Repeat("x", 80)+`","b":"\"`+strings.Repeat("y", 70)+`"}`), 60)
	f.Add([]byte(`"entire-blob:v1:`+name+`:7" \"entire-blob:v1:`+name+`:7\"`), 20)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		got, err := expandMarkers(data, vals)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, markerStart) && !bytes.Equal(got, data) {
			t.Fatalf("a line without markers changed: %q -> %q", data, got)
		}
		// Whatever is moved out of a line comes back, byte for byte.
		own := mapValues{}
		out, err := externalizeLine(data, max(limit%256, 0), 16, own.store)
		if err != nil {
			t.Fatal(err)
		}
		back, err := expandMarkers(out, own)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("round trip: %q -> %q -> %q (%v)", data, out, back, err)
		}
	})
}

// A Gemini CLI session whose message is over the 4 MB chunk target (a
// file read whole) is stored in chunks of up to 50 MiB.
func TestWriteWholeGeminiLongMessage(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	doc, _ := json.MarshalIndent(map[string]any{"sessionId": "s", "messages": []any{
		map[string]any{"id": "u1", "type": "user", "content": "read the dump"},
		map[string]any{"id": "g1", "type": "gemini", "content": base64ish(6 << 20)},
		map[string]any{"id": "u2", "type": "user", "content": "thanks"},
	}}, "", "  ")
	st, err := WriteWhole(repo, doc, agent.AgentTypeGemini)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadTranscript(repo, st.Stored(), agent.AgentTypeGemini)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(doc, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("read back %d bytes that differ from the %d stored", len(got), len(doc))
	}
}

// TestReadTranscriptBoundsHostileExpansion: a teammate's checkpoint of a
// few small objects that stands for more than MaxReadTranscript (a value
// named by many markers, a value tree whose parts are all one blob, one
// chunk named many times) is refused before it is put together.
func TestReadTranscriptBoundsHostileExpansion(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	value := []byte(`"` + strings.Repeat("v", 1<<20) + `"`)
	vh, err := repo.WriteBlob(value)
	if err != nil {
		t.Fatal(err)
	}
	n := MaxReadTranscript/len(value) + 2
	parts := make([]object.TreeEntry, n)
	for i := range parts {
		parts[i] = object.TreeEntry{Name: fmt.Sprintf("%06d", i), Mode: filemode.Regular, Hash: vh}
	}
	th, err := repo.WriteTree(parts)
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := repo.WriteTree([]object.TreeEntry{
		{Name: vh.String(), Mode: filemode.Regular, Hash: vh},
		{Name: th.String(), Mode: filemode.Dir, Hash: th},
	})
	if err != nil {
		t.Fatal(err)
	}
	manyMarkers := `{"type":"user","v":[` + strings.Repeat(string(blobMarker(vh.String(), len(value)))+",", n) + `1]}`
	oneTree := `{"type":"user","v":` + string(blobMarker(th.String(), n*len(value))) + `}`
	for name, chunk := range map[string]string{"many markers": manyMarkers, "tree of one blob": oneTree} {
		ch, err := repo.WriteBlob([]byte(chunk))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTranscript(repo, Stored{Chunks: []plumbing.Hash{ch}, Blobs: blobs}, ""); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("%s: err = %v, want a transcript of over %d MiB refused", name, err, MaxReadTranscript>>20)
		}
	}
	chunk, err := repo.WriteBlob(append([]byte(`{"type":"user","v":`), value...))
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([]plumbing.Hash, n)
	for i := range chunks {
		chunks[i] = chunk
	}
	if _, err := ReadTranscript(repo, Stored{Chunks: chunks}, ""); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("one chunk named %d times: err = %v, want a transcript of over %d MiB refused", n, err, MaxReadTranscript>>20)
	}
}
