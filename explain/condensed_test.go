package explain

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint/condensed"
)

// Records gathered step by step (each step feeding its own lines from
// the line where the previous stopped), then cut at a scope start, give
// the entries ParseTranscript gives for that start: what a condensation
// stores is what the stored transcript explains.
func TestRecordsMatchParse(t *testing.T) {
	t.Parallel()
	docs := []string{
		`{"type":"user","message":{"content":"first"}}
{"type":"assistant","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}

not json
{"type":"user","message":{"content":"second"}}{"type":"assistant","message":{"content":"glued"}}
{"id":"m1","type":"gemini","content":"v1"}
{"id":"m1","type":"gemini","content":"v2","toolCalls":[{"name":"read_file","args":{"path":"a"}}]}
{"type":"user","message":{"content":"third"}}
`,
	}
	if root := fixtureRoot(); root != "" {
		files, _ := filepath.Glob(filepath.Join(root, "claude-code", "*.jsonl"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				docs = append(docs, string(b))
			}
		}
	}
	for _, doc := range docs {
		lines := strings.SplitAfter(doc, "\n")
		for _, cut := range []int{1, 3, 5} {
			var recs []condensed.Record
			for from := 0; from < len(lines); from += cut {
				p := condensed.LineParser{First: from}
				for _, l := range lines[from:min(from+cut, len(lines))] {
					if l == "" {
						continue
					}
					recs = p.Line(bytes.TrimSuffix([]byte(l), []byte("\n")), recs)
				}
			}
			for _, start := range []int{0, 2, 6, 9} {
				want, err := ParseTranscript([]byte(doc), start)
				if err != nil {
					t.Fatal(err)
				}
				if got := condensed.Entries(recs, start); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
					t.Errorf("steps of %d lines, start %d:\n got  %v\n want %v", cut, start, got, want)
				}
			}
		}
	}
}
