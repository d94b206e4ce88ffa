package agent_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/agenttest"
	_ "github.com/entirecli/entire/agent/claudecode"
	_ "github.com/entirecli/entire/agent/geminicli"
)

func TestChunkFileNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want int
	}{
		{"full.jsonl", 0}, {"full.jsonl.001", 1}, {"full.jsonl.012", 12}, {"full.jsonl.1000", 1000},
		{"full.jsonl.000", -1}, {"full.jsonl.01", -1}, {"full.jsonl.abc", -1}, {"full.jsonl.", -1},
		{"full.log", -1}, {"xfull.jsonl", -1}, {"full.jsonl.-01", -1},
	}
	for _, tt := range tests {
		if got := agent.ParseChunkIndex(tt.name, "full.jsonl"); got != tt.want {
			t.Errorf("ParseChunkIndex(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
	for i := 0; i < 1200; i += 7 {
		if got := agent.ParseChunkIndex(agent.ChunkFileName("full.jsonl", i), "full.jsonl"); got != i {
			t.Errorf("ChunkFileName/ParseChunkIndex round trip %d -> %d", i, got)
		}
	}
	if got := agent.ChunkFileName("full.jsonl", 2); got != "full.jsonl.002" {
		t.Errorf("ChunkFileName(2) = %q", got)
	}
	in := []string{"full.jsonl.010", "metadata.json", "full.jsonl.002", "full.jsonl", "full.jsonl.001"}
	want := []string{"full.jsonl", "full.jsonl.001", "full.jsonl.002", "full.jsonl.010"}
	if got := agent.SortChunkFiles(in, "full.jsonl"); !reflect.DeepEqual(got, want) {
		t.Errorf("SortChunkFiles = %q, want %q", got, want)
	}
	if in[0] != "full.jsonl.010" {
		t.Errorf("SortChunkFiles modified its input")
	}
}

func TestChunkJSONL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		max     int
		want    []string
	}{
		{"fits", "a\nb\n", 4, []string{"a\nb\n"}},
		{"split", "aa\nbb\ncc\n", 6, []string{"aa\nbb", "cc\n"}},
		{"exact boundary", "aa\nbb\ncc", 6, []string{"aa\nbb", "cc"}},
		{"one per chunk", "aaaa\nbbbb\ncccc\n", 5, []string{"aaaa", "bbbb", "cccc\n"}},
		{"empty lines", "a\n\n\nb\n", 3, []string{"a\n", "\nb\n"}},
		{"empty", "", 4, []string{""}},
	}
	for _, tt := range tests {
		chunks, err := agent.ChunkJSONL([]byte(tt.content), tt.max)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []string
		for _, c := range chunks {
			got = append(got, string(c))
			if len(c) > tt.max {
				t.Errorf("%s: chunk %q over %d bytes", tt.name, c, tt.max)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: chunks %q, want %q", tt.name, got, tt.want)
		}
		if back := agent.ReassembleJSONL(chunks); string(back) != tt.content {
			t.Errorf("%s: reassembled %q", tt.name, back)
		}
	}
	_, err := agent.ChunkJSONL([]byte("ok\n"+strings.Repeat("x", 11)+"\nok\n"), 10)
	if !errors.Is(err, agent.ErrLineTooLarge) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("oversized line: err = %v", err)
	}
}

// TestPackJSONLLongLine checks how the store packs a line over its chunk
// target: a 6 MB line between ordinary ones is a chunk of its own, the lines
// around it are packed as before, and joining the chunks with "\n" (as
// Entire 0.4.x readers do) gives back the input.
func TestPackJSONLLongLine(t *testing.T) {
	t.Parallel()
	line := func(i, n int) string { return fmt.Sprintf(`{"i":%d,"pad":%q}`, i, strings.Repeat("p", n)) }
	var before, after []string
	for i := 0; i < 40; i++ {
		before = append(before, line(i, 300<<10))
		after = append(after, line(100+i, 200<<10))
	}
	long := line(-1, 6<<20)
	content := strings.Join(before, "\n") + "\n" + long + "\n" + strings.Join(after, "\n") + "\n"
	chunks, err := agent.PackJSONL([]byte(content), agent.StoreChunkSize, agent.MaxChunkSize)
	if err != nil {
		t.Fatal(err)
	}
	alone := -1
	for i, c := range chunks {
		if string(c) == long {
			alone = i
		} else if len(c) > agent.StoreChunkSize {
			t.Errorf("chunk %d is %d bytes", i, len(c))
		}
	}
	if alone < 0 {
		t.Fatalf("the 6 MB line is not a chunk of its own")
	}
	// Packed as before: the chunks before it are those of the lines before
	// it alone, the chunks after it those of the lines after it.
	want, _ := agent.ChunkJSONL([]byte(strings.Join(before, "\n")), agent.StoreChunkSize)
	wantAfter, _ := agent.ChunkJSONL([]byte(strings.Join(after, "\n")+"\n"), agent.StoreChunkSize)
	want = append(append(want, []byte(long)), wantAfter...)
	if !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks around the long line are packed differently (%d chunks, want %d)", len(chunks), len(want))
	}
	if back := agent.ReassembleJSONL(chunks); string(back) != content {
		t.Errorf("joining the chunks with \"\\n\" changed the content")
	}
	// A line over the limit is still an error; one at the limit, with its
	// newline, is not.
	if _, err := agent.PackJSONL([]byte("a\n"+strings.Repeat("x", 11)+"\n"), 4, 10); !errors.Is(err, agent.ErrLineTooLarge) {
		t.Errorf("line over the limit: err = %v", err)
	}
	for _, in := range []string{"a\n" + strings.Repeat("x", 10) + "\n", strings.Repeat("x", 10) + "\nbb\ncc\n", "aa\n" + strings.Repeat("x", 7) + "\nb"} {
		chunks, err := agent.PackJSONL([]byte(in), 4, 10)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for _, c := range chunks {
			if len(c) > 10 || len(c) > 4 && bytes.Contains(c, []byte("\n")) {
				t.Errorf("%q: chunk %q", in, c)
			}
		}
		if back := agent.ReassembleJSONL(chunks); string(back) != in {
			t.Errorf("%q: reassembled %q", in, back)
		}
	}
}

// TestChunkJSONLPrefixStable checks the storage property StoreChunkSize
// relies on: when a transcript grows by appending lines, every chunk but the
// last is unchanged.
func TestChunkJSONLPrefixStable(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	var content []byte
	var prev [][]byte
	for step := 0; step < 300; step++ {
		for n := rng.Intn(4) + 1; n > 0; n-- {
			content = append(content, fmt.Sprintf(`{"i":%d,"pad":%q}`+"\n", step, strings.Repeat("p", rng.Intn(400)))...)
		}
		chunks, err := agent.ChunkJSONL(content, 2048)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) < len(prev) {
			t.Fatalf("step %d: chunk count shrank %d -> %d", step, len(prev), len(chunks))
		}
		for i := 0; i+1 < len(prev); i++ {
			if !bytes.Equal(prev[i], chunks[i]) {
				t.Fatalf("step %d: chunk %d changed when the transcript grew", step, i)
			}
		}
		if !bytes.Equal(agent.ReassembleJSONL(chunks), content) {
			t.Fatalf("step %d: round trip failed", step)
		}
		prev = chunks
	}
	if len(prev) < 10 {
		t.Fatalf("test too small: %d chunks", len(prev))
	}
}

func TestChunkTranscriptFixtures(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"claude-code", "gemini-cli"} {
		for _, path := range agenttest.TranscriptFixtures(t, sub) {
			content, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			typ := recognizedType(content)
			if want := map[string]agent.AgentType{"claude-code": "", "gemini-cli": agent.AgentTypeGemini}[sub]; typ != want {
				t.Errorf("%s: Recognize = %q, want %q", path, typ, want)
			}
			for _, size := range []int{agent.MaxChunkSize, agent.StoreChunkSize, 512 << 10, 128 << 10} {
				chunks, err := agent.ChunkTranscriptSize(content, typ, size)
				if errors.Is(err, agent.ErrLineTooLarge) {
					continue // real lines over 128 KB exist
				}
				if err != nil {
					t.Fatalf("%s at %d: %v", path, size, err)
				}
				back, err := agent.ReassembleTranscript(chunks, typ)
				if err != nil {
					t.Fatal(err)
				}
				if typ == "" && !bytes.Equal(back, content) {
					t.Errorf("%s: JSONL round trip at %d is not byte-identical", path, size)
				}
				if typ == agent.AgentTypeGemini && recognizedType(back) != agent.AgentTypeGemini {
					t.Errorf("%s: reassembled Gemini transcript not recognised", path)
				}
			}
		}
	}
	// The default entry points use MaxChunkSize.
	one, err := agent.ChunkTranscript([]byte("a\nb\n"), "")
	if err != nil || len(one) != 1 {
		t.Errorf("ChunkTranscript small = %q, %v", one, err)
	}
}
