//go:build torture

// The torture tier's tests of checkpoint: transcript lines of 50 MiB and
// more, as the largest tool outputs make them.

package checkpoint

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A Gemini CLI message over 50 MiB has its largest values moved out,
// like a JSONL line.
func TestWriteWholeGeminiHugeMessage(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	doc, _ := json.MarshalIndent(map[string]any{"sessionId": "s", "messages": []any{
		map[string]any{"id": "u1", "type": "user", "content": "read the dump"},
		map[string]any{"id": "g1", "type": "gemini", "content": "here it is", "toolCalls": []any{
			map[string]any{"id": "r1", "name": "read_file", "result": base64ish(agent.MaxChunkSize + 1<<20)},
		}},
		map[string]any{"id": "u2", "type": "user", "content": "thanks"},
	}}, "", "  ")
	st, err := WriteWhole(repo, doc, agent.AgentTypeGemini)
	if err != nil {
		t.Fatal(err)
	}
	if st.Blobs == "" {
		t.Fatalf("no values moved out")
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

// Lines over SPEC 4.5's 50 MiB limit are stored with their largest values
// in BlobDir, lines over the 4 MB target but under the limit as chunks of
// their own, and the transcript reads back byte for byte, across appends.
func TestAppendJSONLLongLines(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	small := jsonlOf(40, 2000, 0)
	six := append(toolResult(1, base64ish(6<<20)), '\n')
	huge := append(toolResult(2, base64ish(agent.MaxChunkSize+(8<<20))), '\n')
	var many bytes.Buffer // 52 MiB of small strings: moved out whole
	many.WriteString(`{"type":"user","list":[`)
	for many.Len() < agent.MaxChunkSize+(1<<20) {
		many.WriteString(`"node_modules/some-package/lib/index.js",`)
	}
	many.WriteString(`"end"]}` + "\n")

	var all []byte
	var st *TranscriptState
	for i, add := range [][]byte{small, six, small, huge, many.Bytes(), jsonlOf(3, 100, 1)} {
		var err error
		if st, err = AppendJSONL(repo, st, add); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		all = append(all, add...)
		got, err := ReadTranscript(repo, st.Stored(), "")
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if !bytes.Equal(got, all) {
			t.Fatalf("append %d: read back %d bytes, want %d", i, len(got), len(all))
		}
		if st.Lines != bytes.Count(all, []byte{'\n'}) {
			t.Errorf("append %d: %d lines, want %d", i, st.Lines, bytes.Count(all, []byte{'\n'}))
		}
	}
	sixAlone := false
	for i, h := range st.ChunkHashes() {
		c, err := repo.ReadBlob(h)
		if err != nil {
			t.Fatal(err)
		}
		if len(c) > agent.StoreChunkSize && !bytes.Equal(c, bytes.TrimSuffix(six, []byte{'\n'})) {
			t.Errorf("chunk %d is %d bytes", i, len(c))
		}
		sixAlone = sixAlone || bytes.Equal(c, bytes.TrimSuffix(six, []byte{'\n'}))
	}
	if !sixAlone {
		t.Errorf("the 6 MB line is not a chunk of its own")
	}
	// Two values moved out: the tool result (in parts, being over the
	// limit) and the whole line of small strings.
	blobs, err := repo.Git.TreeObject(plumbing.NewHash(st.Blobs))
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs.Entries) != 2 {
		t.Fatalf("%s has %d entries, want 2", BlobDir, len(blobs.Entries))
	}
	for _, e := range blobs.Entries {
		if e.Name != e.Hash.String() {
			t.Errorf("entry %s holds %s", e.Name, e.Hash)
		}
		if e.Mode == filemode.Dir {
			parts, _ := repo.Git.TreeObject(e.Hash)
			for _, p := range parts.Entries {
				if n, _ := repo.ObjectSize(p.Hash); n > agent.MaxChunkSize {
					t.Errorf("part %s is %d bytes", p.Name, n)
				}
			}
		} else if n, _ := repo.ObjectSize(e.Hash); n > agent.MaxChunkSize {
			t.Errorf("value %s is %d bytes", e.Name, n)
		}
	}
	changes, err := st.TreeChanges(repo, "a3/b2c4d5e6f7/0")
	if err != nil {
		t.Fatal(err)
	}
	if last := changes[len(changes)-1]; last.Path != "a3/b2c4d5e6f7/0/"+BlobDir || last.Mode != filemode.Dir || last.Hash.String() != st.Blobs {
		t.Errorf("tree changes do not keep %s: %+v", BlobDir, last)
	}
	// Re-redaction keeps every line and every value readable, and writes
	// the values again when the redaction changes them.
	redact := func(b []byte) []byte {
		return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("node_modules"), []byte("REDACTED")), []byte("xyz"), []byte("XYZ"))
	}
	redacted, err := RewriteChunks(repo, st, redact)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadTranscript(repo, redacted.Stored(), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := redact(all); !bytes.Equal(got, want) || bytes.Equal(got, all) {
		t.Errorf("re-redacted transcript: %d bytes, want %d (changed: %v)", len(got), len(want), !bytes.Equal(got, all))
	}
	if redacted.Blobs == st.Blobs {
		t.Errorf("re-redaction kept the old values")
	}
}

// A line over agent.MaxChunkSize has its values moved out as the
// whole-buffer reference moves them, into the same BlobDir tree.
func TestJSONLAppenderMatchesAppendJSONLOnAHugeLine(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	big := `{"type":"user","message":{"content":[{"type":"tool_result","content":"` + strings.Repeat("0123456789", 6<<20) + `"}]}}` + "\n"
	requireSameStore(t, repo, [][]byte{
		jsonlOf(10, 1000, 0),
		[]byte(`{"a":1}` + "\n" + big + `{"b":2}` + "\n"),
		jsonlOf(3, 10, 20),
	}, 9)
}

// A line longer than agent.MaxLine stands as an OmittedLine, as ReadSource
// gives it, and the lines around it are read.
func TestSourceReaderOmitsOverlongLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	content := "a\n" + strings.Repeat("z", maxSourceRead) + "\nb\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	got, end, _ := readAllWindows(t, path, nil, SourceWindow)
	want := "a\n" + string(OmittedLine(maxSourceRead)) + "b\n"
	if string(got) != want || end != int64(len(content)) {
		t.Fatalf("got %q to %d, want %q to %d", got, end, want, len(content))
	}
}
