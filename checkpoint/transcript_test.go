package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A transcript that grows turn by turn is stored incrementally: earlier
// chunks keep their blobs, the content hash always matches the bytes, and a
// rewritten source is noticed and stored again from the start.
func TestAppendJSONLIsIncrementalAndExact(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	repo := openRepo(t, dir)
	src := filepath.Join(t.TempDir(), "session.jsonl")

	var st *TranscriptState
	var all []byte
	var prevChunks []string
	for turn := 0; turn < 6; turn++ {
		grow := jsonlOf(1500, 1000, turn*1500)
		all = append(all, grow...)
		// The agent is in the middle of writing the next line.
		if err := os.WriteFile(src, append(append([]byte(nil), all...), []byte(`{"partial":`)...), 0o600); err != nil {
			t.Fatal(err)
		}
		data, end, restart, err := ReadSource(src, st)
		if err != nil {
			t.Fatal(err)
		}
		if restart || !bytes.Equal(data, grow) || end != int64(len(all)) {
			t.Fatalf("turn %d: ReadSource gave %d bytes, end %d, restart %v; want the %d new bytes", turn, len(data), end, restart, len(grow))
		}
		st, err = AppendJSONL(repo, st, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SetSource(src, end); err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(prevChunks); i++ {
			if st.Chunks[i] != prevChunks[i] {
				t.Fatalf("turn %d: chunk %d changed although the transcript only grew", turn, i)
			}
		}
		prevChunks = st.Chunks
		got, err := ReadTranscript(repo, st.Stored(), "")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, all) {
			t.Fatalf("turn %d: stored transcript differs", turn)
		}
		// The hash of exactly the stored bytes: the chunks joined with
		// "\n", without the final newline a chunk does not keep.
		sum := sha256.Sum256(bytes.TrimSuffix(all, []byte{'\n'}))
		if st.ContentHash != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Fatalf("turn %d: content hash %s", turn, st.ContentHash)
		}
		if st.Lines != (turn+1)*1500 {
			t.Fatalf("turn %d: %d lines", turn, st.Lines)
		}
		for i, c := range st.ChunkHashes() {
			size, _ := repo.ObjectSize(c)
			if size > agent.StoreChunkSize {
				t.Fatalf("chunk %d is %d bytes", i, size)
			}
		}
	}
	if len(st.Chunks) < 2 {
		t.Fatalf("expected several chunks, got %d", len(st.Chunks))
	}

	// A rewind truncates the source: the next read starts over.
	short := all[:len(all)/3]
	short = short[:bytes.LastIndexByte(short, '\n')+1]
	if err := os.WriteFile(src, short, 0o600); err != nil {
		t.Fatal(err)
	}
	data, _, restart, err := ReadSource(src, st)
	if err != nil || !restart || !bytes.Equal(data, short) {
		t.Fatalf("after truncation: restart=%v err=%v len=%d", restart, err, len(data))
	}
	// Same length but different bytes before the offset is also a rewrite.
	other := bytes.Repeat([]byte("{\"x\":1}\n"), len(all)/8+1)
	if err := os.WriteFile(src, other, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, restart, _ := ReadSource(src, st); !restart {
		t.Fatal("rewritten source not noticed")
	}
	gittest.Fsck(t, dir)
}

func TestWriteWholeGeminiJSON(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../shared/fixtures/transcripts/gemini-cli/*.json")
	if len(files) == 0 {
		t.Skip("fixtures not found")
	}
	repo := openRepo(t, gittest.InitWithCommit(t))
	for _, f := range files {
		content, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		st, err := WriteWhole(repo, content, agent.AgentTypeGemini)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, err := ReadTranscript(repo, st.Stored(), "")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(got) == 0 {
			t.Fatalf("%s: empty read back", f)
		}
	}
}

// RewriteChunks rewrites only the chunks its function changes, and leaves
// a state that later appends continue exactly (hashes and sizes).
func TestRewriteChunksKeepsUnchangedChunks(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	first := jsonlOf(3000, 1500, 0) // more than one chunk
	st, err := AppendJSONL(repo, nil, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Chunks) < 2 {
		t.Fatalf("setup: %d chunks", len(st.Chunks))
	}
	marker := []byte(`"u-2999"`) // in the last line only
	rw, err := RewriteChunks(repo, st, func(c []byte) []byte { return bytes.ReplaceAll(c, marker, []byte("REDACTED")) })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(st.Chunks); i++ {
		if rw.Chunks[i] != st.Chunks[i] {
			t.Errorf("chunk %d rewritten although unchanged", i)
		}
	}
	if rw.Chunks[len(rw.Chunks)-1] == st.Chunks[len(st.Chunks)-1] {
		t.Error("the changed chunk was not rewritten")
	}
	more := jsonlOf(10, 100, 3000)
	next, err := AppendJSONL(repo, rw, more)
	if err != nil {
		t.Fatal(err)
	}
	want := append(bytes.ReplaceAll(first, marker, []byte("REDACTED")), more...)
	got, err := ReadTranscript(repo, next.Stored(), "")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("transcript after rewrite and append differs (%v)", err)
	}
	sum := sha256.Sum256(bytes.TrimSuffix(want, []byte{'\n'}))
	if next.ContentHash != "sha256:"+hex.EncodeToString(sum[:]) || next.Lines != bytes.Count(want, []byte{'\n'}) {
		t.Errorf("state after rewrite and append: hash %s, lines %d", next.ContentHash, next.Lines)
	}
}

// ReadSource reads at most 64 MiB whatever the file's size, refuses
// anything but a regular file, and continues where the last call stopped.
func TestReadSourceBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.jsonl")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	if _, _, _, err := ReadSource(huge, nil); !errors.Is(err, agent.ErrNotTranscript) {
		t.Fatalf("ReadSource of 4 GiB without a line end: %v", err)
	}
	if _, _, _, err := ReadSource(os.DevNull, nil); !errors.Is(err, agent.ErrNotTranscript) {
		t.Fatalf("ReadSource of a device: %v", err)
	}
	lines := filepath.Join(dir, "lines.jsonl")
	line := strings.Repeat("x", 1<<20-1) + "\n"
	if err := os.WriteFile(lines, []byte(strings.Repeat(line, 70)), 0o600); err != nil {
		t.Fatal(err)
	}
	data, end, _, err := ReadSource(lines, nil)
	if err != nil || len(data) != 64<<20 || end != 64<<20 {
		t.Fatalf("first read: %d bytes, end %d, %v", len(data), end, err)
	}
	st := &TranscriptState{}
	if err := st.SetSource(lines, end); err != nil {
		t.Fatal(err)
	}
	data, end, restart, err := ReadSource(lines, st)
	if err != nil || restart || len(data) != 6<<20 || end != 70<<20 {
		t.Fatalf("second read: %d bytes, end %d, restart %v, %v", len(data), end, restart, err)
	}

	// A line over 64 MiB comes back as the line standing for it, and the
	// next read goes on after it.
	long := filepath.Join(dir, "long.jsonl")
	content := strings.Repeat("y", 70<<20) + "\n" + `{"type":"user"}` + "\n"
	if err := os.WriteFile(long, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	data, end, _, err = ReadSource(long, nil)
	if err != nil || string(data) != string(OmittedLine(70<<20)) || end != 70<<20+1 {
		t.Fatalf("read of a 70 MiB line: %q, end %d, %v", firstN(data, 80), end, err)
	}
	st = &TranscriptState{}
	if err := st.SetSource(long, end); err != nil {
		t.Fatal(err)
	}
	if data, _, _, err = ReadSource(long, st); err != nil || string(data) != `{"type":"user"}`+"\n" {
		t.Fatalf("read after the long line: %q, %v", data, err)
	}
}

func firstN(b []byte, n int) []byte { return b[:min(n, len(b))] }

// A turn that wrote a line of many megabytes is read into one buffer of
// its size, not a growing one. Not parallel: it counts allocations.
func TestReadSourceAllocatesOnce(t *testing.T) {
	src := filepath.Join(t.TempDir(), "session.jsonl")
	data := append(bytes.Repeat([]byte("x"), 16<<20), '\n')
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, end, _, err := ReadSource(src, nil)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, data) || end != int64(len(data)) {
		t.Fatalf("ReadSource: %d bytes, end %d, %v", len(got), end, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(data))*5/4 {
		t.Errorf("ReadSource allocated %d MB for %d MB", n>>20, len(data)>>20)
	}
}

// The content hash is SHA-256 of exactly the stored bytes, the chunk blobs
// joined with "\n" (what 0.4.x readers hash to check it), after a first
// store, appends that merge into the last chunk or start a new one, and a
// rewrite; and of the one chunk of a small whole document.
func TestContentHashIsOfStoredChunks(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	check := func(what string, st *TranscriptState) {
		t.Helper()
		var joined []byte
		for i, h := range st.ChunkHashes() {
			b, err := repo.ReadBlob(h)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				joined = append(joined, '\n')
			}
			joined = append(joined, b...)
		}
		sum := sha256.Sum256(joined)
		if want := "sha256:" + hex.EncodeToString(sum[:]); st.ContentHash != want {
			t.Errorf("%s: content hash %s, want %s (%d chunks)", what, st.ContentHash, want, len(st.Chunks))
		}
	}
	st, err := AppendJSONL(repo, nil, jsonlOf(3, 10, 0))
	if err != nil {
		t.Fatal(err)
	}
	check("first store", st)
	if st, err = AppendJSONL(repo, st, jsonlOf(3, 10, 3)); err != nil {
		t.Fatal(err)
	}
	check("append merged into the last chunk", st)
	if st, err = AppendJSONL(repo, st, jsonlOf(3000, 1500, 6)); err != nil {
		t.Fatal(err)
	}
	check("append over several chunks", st)
	if st, err = AppendJSONL(repo, st, jsonlOf(2, 10, 3006)); err != nil {
		t.Fatal(err)
	}
	check("append after a full chunk", st)
	rw, err := RewriteChunks(repo, st, func(c []byte) []byte { return bytes.ReplaceAll(c, []byte(`"u-1"`), []byte(`"X"`)) })
	if err != nil {
		t.Fatal(err)
	}
	check("rewrite", rw)
	doc := []byte(`{"sessionId":"s","messages":[{"type":"user","content":"hi"}]}`)
	whole, err := WriteWhole(repo, doc, agent.AgentTypeGemini)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Chunks) == 1 {
		check("whole document", whole)
	}
}
