package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
)

// appendLines appends JSON lines to a transcript file.
func appendLines(t *testing.T, path string, lines ...map[string]any) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		b, _ := json.Marshal(l)
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

func userLine(text string) map[string]any {
	return map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}}
}

func assistantText(id string, texts ...string) map[string]any {
	var blocks []any
	for _, t := range texts {
		blocks = append(blocks, map[string]any{"type": "text", "text": t})
	}
	return map[string]any{"type": "assistant", "message": map[string]any{"id": id, "role": "assistant", "content": blocks}}
}

func stopProgress() map[string]any {
	return map[string]any{"type": "progress", "data": map[string]any{"type": "hook_progress", "hookEvent": "Stop", "command": "entire hooks claude-code stop"}}
}

func mustCheck(t *testing.T, check agent.TurnEndCheck, want bool, why string) {
	t.Helper()
	got, err := check()
	if err != nil {
		t.Fatalf("%s: %v", why, err)
	}
	if got != want {
		t.Fatalf("%s: done = %v, want %v", why, got, want)
	}
}

// fileEnd is the position just past a file's last byte, as a turn start
// cursor.
func fileEnd(t *testing.T, path string, lines int) agent.Position {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return agent.Position{Entries: lines, Offset: fi.Size()}
}

func TestWatchTurnEndByFinalAnswer(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	// The previous turn ended with the same words: they must not count.
	appendLines(t, path, userLine("first"), assistantText("m1", "Done."))
	from := fileEnd(t, path, 2)
	appendLines(t, path, userLine("second"))
	check := New().WatchTurnEnd(path, from, agent.TurnEnd{FinalAnswer: "  Done.\n", HasFinalAnswer: true})
	mustCheck(t, check, false, "only the prompt so far")
	appendLines(t, path, assistantText("m2", "Working on it"))
	mustCheck(t, check, false, "an intermediate text")
	// Half a line: not yet.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	line, _ := json.Marshal(assistantText("m3", "Done."))
	f.Write(line[:10])
	mustCheck(t, check, false, "an incomplete line")
	f.Write(append(line[10:], '\n'))
	f.Close()
	mustCheck(t, check, true, "the final answer")
	mustCheck(t, check, true, "still done")
}

func TestWatchTurnEndIgnoresEarlierTurns(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	// A cursor left before the previous turn's last line (its Stop timed
	// out): that line follows the cursor but precedes this turn's prompt.
	appendLines(t, path, userLine("first"))
	from := fileEnd(t, path, 1)
	appendLines(t, path, assistantText("m1", "Done."), userLine("second"))
	check := New().WatchTurnEnd(path, from, agent.TurnEnd{FinalAnswer: "Done.", HasFinalAnswer: true})
	mustCheck(t, check, false, "the previous turn's answer")
	appendLines(t, path, assistantText("m2", "Done."))
	mustCheck(t, check, true, "this turn's answer")
}

func TestWatchTurnEndSplitBlocks(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userLine("go"))
	check := New().WatchTurnEnd(path, agent.Position{}, agent.TurnEnd{FinalAnswer: "Part one.\n\nPart two.", HasFinalAnswer: true})
	appendLines(t, path, assistantText("m1", "Part one."))
	mustCheck(t, check, false, "one of two blocks")
	appendLines(t, path, assistantText("m1", "Part two."))
	mustCheck(t, check, true, "both blocks of the message")
}

func TestWatchTurnEndByHookProgress(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userLine("first"), assistantText("m1", "a"), stopProgress())
	from := fileEnd(t, path, 3)
	appendLines(t, path, userLine("second"), assistantText("m2", "b"))
	// No last_assistant_message: an older client.
	check := New().WatchTurnEnd(path, from, agent.TurnEnd{})
	mustCheck(t, check, false, "no progress line of this turn")
	appendLines(t, path, stopProgress())
	mustCheck(t, check, true, "this turn's Stop progress line")
}

func TestWatchTurnEndCursorWithoutOffset(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userLine("first"), assistantText("m1", "Done."), userLine("second"), assistantText("m2", "Done."))
	// A cursor rebuilt from a line count skips that many lines.
	check := New().WatchTurnEnd(path, agent.Position{Entries: 2}, agent.TurnEnd{FinalAnswer: "Done.", HasFinalAnswer: true})
	mustCheck(t, check, true, "the answer after the skipped lines")
	check = New().WatchTurnEnd(path, agent.Position{Entries: 4}, agent.TurnEnd{FinalAnswer: "Done.", HasFinalAnswer: true})
	mustCheck(t, check, false, "every line skipped")
}

func TestWatchTurnEndEmptyAnswerAndMissingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing.jsonl")
	mustCheck(t, New().WatchTurnEnd(path, agent.Position{}, agent.TurnEnd{HasFinalAnswer: true}), true, "an empty final answer")
	// Claude Code creates the file at its first flush: not there yet is
	// not an error.
	mustCheck(t, New().WatchTurnEnd(path, agent.Position{}, agent.TurnEnd{FinalAnswer: "x", HasFinalAnswer: true}), false, "a transcript not written yet")
	appendLines(t, path, userLine("go"), assistantText("m1", "x"))
	mustCheck(t, New().WatchTurnEnd(path, agent.Position{}, agent.TurnEnd{FinalAnswer: "x", HasFinalAnswer: true}), true, "the transcript once written")
}

func TestWatchTurnEndRewrittenFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userLine("first"), assistantText("m1", "a long answer of the first turn"))
	from := fileEnd(t, path, 2)
	// A rewind truncates the file below the cursor: nothing in it is of
	// this turn.
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	appendLines(t, path, assistantText("m2", "Done."))
	mustCheck(t, New().WatchTurnEnd(path, from, agent.TurnEnd{FinalAnswer: "Done.", HasFinalAnswer: true}), false, "a rewritten transcript")
}

// A transcript cut below the turn's start and grown past it again (a
// rewind restored it, then the turn appended) is read from its start: the
// turn's prompt and answer are found, not skipped as bytes before the old
// offset.
func TestWatchTurnEndRewrittenAndGrownFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userLine("first"), assistantText("m1", "one"), userLine("second"), assistantText("m2", "two"))
	from := fileEnd(t, path, 4)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	appendLines(t, path, userLine("first"), assistantText("m1", "one"), userLine("third, a longer prompt than the second"), assistantText("m3", "Done, and more words."))
	mustCheck(t, New().WatchTurnEnd(path, from, agent.TurnEnd{FinalAnswer: "Done, and more words.", HasFinalAnswer: true}), true, "a rewritten transcript grown past the turn start")
	mustCheck(t, New().WatchTurnEnd(path, from, agent.TurnEnd{FinalAnswer: "one", HasFinalAnswer: true}), false, "an earlier turn's answer in a rewritten transcript")
}

// A scan from a position the file no longer holds (cut back, then grown
// past it) restarts from the beginning instead of reading from the middle
// of a line.
func TestScanTranscriptRewrittenAndGrown(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLines(t, path, userLine("first"), assistantText("m1", "one"), userLine("second"), assistantText("m2", "two"))
	a := New()
	an, err := a.ScanTranscript(path, agent.Position{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	appendLines(t, path, userLine("first"), assistantText("m1", "one"), userLine("third, a longer prompt than the second"), assistantText("m3", "three"))
	again, err := a.ScanTranscript(path, an.To)
	if err != nil {
		t.Fatal(err)
	}
	if again.From != (agent.Position{}) || len(again.Prompts) != 2 || again.Prompts[1] != "third, a longer prompt than the second" {
		t.Fatalf("scan from a position the file lost: from %+v, prompts %q", again.From, again.Prompts)
	}
}

// A watch from the start of a transcript larger than one read finds an
// answer whose line spans several reads.
func TestWatchTurnEndReadsInPieces(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	answer := strings.Repeat("y", 3*watchReadSize/2)
	appendLines(t, path, userLine("go"), assistantText("m1", strings.Repeat("x", watchReadSize*7/10)))
	check := New().WatchTurnEnd(path, agent.Position{}, agent.TurnEnd{FinalAnswer: answer, HasFinalAnswer: true})
	mustCheck(t, check, false, "a long intermediate text")
	appendLines(t, path, assistantText("m2", answer))
	mustCheck(t, check, true, "an answer spanning reads")
	check = New().WatchTurnEnd(path, agent.Position{}, agent.TurnEnd{FinalAnswer: answer, HasFinalAnswer: true})
	mustCheck(t, check, true, "the whole transcript in one check")
}
