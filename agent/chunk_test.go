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
			typ := agent.DetectAgentTypeFromContent(content)
			if want := map[string]agent.AgentType{"claude-code": "", "gemini-cli": agent.AgentTypeGemini}[sub]; typ != want {
				t.Errorf("%s: DetectAgentTypeFromContent = %q, want %q", path, typ, want)
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
				if typ == agent.AgentTypeGemini && agent.DetectAgentTypeFromContent(back) != agent.AgentTypeGemini {
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
