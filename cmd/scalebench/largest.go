package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// toolResult plays tool60: one turn in which a Bash command prints
// toolMB megabytes; the transcript gains the result, PostToolUse carries it
// in tool_response, then the agent writes a file, Stop runs, and the user
// commits.
func (b *bench) toolResult(s *scenario) error {
	w, err := s.openTranscript()
	if err != nil {
		return err
	}
	defer w.close()
	if err := s.startTurn(w, "dump the build log and summarize it"); err != nil {
		return err
	}
	size := b.opts.toolMB << 20
	output := logText(size)
	input := map[string]any{"command": "make build 2>&1", "description": "Build and print the full log"}
	const id = "toolu_01BenchBash60MB"
	if err := w.toolUse(id, "Bash", input); err != nil {
		return err
	}
	// The transcript keeps the output once, in the tool_result; the
	// toolUseResult beside it is kept small so that the line is the
	// stated size.
	if err := w.toolResult(id, output, map[string]any{"stdout": "(in the tool result)", "stderr": "", "interrupted": false, "isImage": false}); err != nil {
		return err
	}
	label := fmt.Sprintf("%d MB tool_response", b.opts.toolMB)
	if err := s.hook("post-tool", "PostToolUse", label, map[string]any{
		"tool_name": "Bash", "tool_input": input, "tool_use_id": id, "duration_ms": 5400,
		"tool_response": map[string]any{"stdout": output, "stderr": "", "interrupted": false, "isImage": false},
	}); err != nil {
		return err
	}
	output = ""
	if err := s.writeTool(w, "BUILD-SUMMARY.md", "# Build\n\nThe build passed.\n"); err != nil {
		return err
	}
	tsize := fmt.Sprintf("%.0f MB transcript", float64(w.size())/(1<<20))
	if err := s.endTurn(w, "The build passed; the summary is in BUILD-SUMMARY.md.", tsize); err != nil {
		return err
	}
	return s.commit("Add the build summary", tsize)
}

// longTurn plays long75: one turn in which the agent reads source files,
// runs commands and writes a few files until the transcript holds
// transcriptMB megabytes, then Stop and the user's commit.
func (b *bench) longTurn(s *scenario) error {
	w, err := s.openTranscript()
	if err != nil {
		return err
	}
	defer w.close()
	if err := s.startTurn(w, "refactor the whole source tree"); err != nil {
		return err
	}
	target := int64(b.opts.transcriptMB) << 20
	writes := []int64{target / 4, target / 2, target * 3 / 4}
	for i := 0; w.size() < target; i++ {
		if len(writes) > 0 && w.size() >= writes[0] {
			writes = writes[1:]
			rel := fmt.Sprintf("src/new%02d.go", len(writes))
			if err := s.writeTool(w, rel, sourceText(100+i, 3<<10)); err != nil {
				return err
			}
			continue
		}
		id := fmt.Sprintf("toolu_01BenchStep%06d", i)
		if i%3 == 2 {
			out := logText(8<<10 + i%5*4<<10)
			in := map[string]any{"command": fmt.Sprintf("go test ./pkg%d/...", i%17), "description": "Run the tests"}
			if err := w.toolUse(id, "Bash", in); err != nil {
				return err
			}
			if err := w.toolResult(id, out, map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}); err != nil {
				return err
			}
			continue
		}
		rel := fmt.Sprintf("src/file%02d.go", i%40)
		text := sourceText(i, 12<<10)
		in := map[string]any{"file_path": filepath.Join(s.repo, rel)}
		if err := w.toolUse(id, "Read", in); err != nil {
			return err
		}
		res := map[string]any{"type": "text", "file": map[string]any{"filePath": filepath.Join(s.repo, rel), "content": text,
			"numLines": strings.Count(text, "\n"), "startLine": 1, "totalLines": strings.Count(text, "\n")}}
		if err := w.toolResult(id, text, res); err != nil {
			return err
		}
	}
	tsize := fmt.Sprintf("%.0f MB transcript", float64(w.size())/(1<<20))
	if err := s.endTurn(w, "Refactored the source tree; three new files.", tsize); err != nil {
		return err
	}
	return s.commit("Refactor the source tree", tsize)
}
