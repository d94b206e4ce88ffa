package agent

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
)

// Position is a point in a transcript, as returned by a scan and passed back
// as the start of the next one.
//
// Entries counts complete lines (JSONL transcripts) or messages (Gemini's
// single-JSON transcript). Offset is the byte offset just past the last
// complete line consumed (JSONL); it is 0 for formats that must be re-read
// whole. LastID is the identifier of the last entry seen (Claude `uuid`,
// Gemini message `id`), "" if none.
//
// The zero Position is the start of the transcript. A Position with Offset 0
// but Entries > 0 (e.g. one rebuilt from a stored line count) makes a JSONL
// scan skip that many lines from the start.
type Position struct {
	Entries int    `json:"entries"`
	Offset  int64  `json:"offset"`
	LastID  string `json:"last_id,omitempty"`
}

// ToolUse is one tool call, for summaries ("Key Actions").
type ToolUse struct {
	// Name is the tool name as the transcript gives it (Edit, write_file).
	Name string
	// Detail is the call's most telling argument as the agent tells it
	// (see Entry.Text for RoleTool): a description, a command, a path; ""
	// if none.
	Detail string
}

// Analysis is what a transcript scan found between From and To.
type Analysis struct {
	// From is the position the scan started at; To is where it stopped (pass
	// it as the next scan's from).
	From, To Position
	// Prompts are the human prompts in scope, oldest first: no tool
	// results, no meta entries, IDE/system tags stripped (SPEC 4.8).
	Prompts []string
	// LastAssistant is the last assistant text in scope, "" if none.
	LastAssistant string
	// ModifiedFiles are the files written by file-editing tools in scope,
	// as the transcript names them (absolute or relative; see
	// RepoRelative), in first-seen order without duplicates.
	ModifiedFiles []string
	// ToolUses are the tool calls in scope, in order.
	ToolUses []ToolUse
	// Tokens is the token usage of this scope only. Tokens.SubagentTokens
	// holds the usage of subagents that the transcript itself records
	// (Claude Code 1.0 inline sidechains); see SubagentTokenReader for
	// subagents stored in their own files.
	Tokens TokenUsage
	// SubagentIDs are the agent IDs of subagents spawned in scope.
	SubagentIDs []string
}

// TranscriptScanner is implemented by agents that can analyse a transcript
// incrementally. It is the hook-path API: a scan from a Position returned by an
// earlier scan reads only what was appended since (JSONL formats), so its cost
// is that of the new entries, not of the transcript.
type TranscriptScanner interface {
	Agent
	// ScanTranscript analyses path from `from` to the end of its last
	// complete entry. Malformed entries are skipped, never fatal. A missing
	// file gives an error wrapping fs.ErrNotExist.
	ScanTranscript(path string, from Position) (*Analysis, error)
}

// TurnScanner is implemented by scanners that can end a scan where the
// agent's next turn begins, for a turn end analysed after the agent may
// have moved on (its step is written in the background).
type TurnScanner interface {
	// ScanTurn is ScanTranscript that stops before the first human prompt
	// that starts at byte offset after or later (the transcript's size
	// when the turn-end hook ran: what the agent wrote after it up to its
	// next prompt is still the turn's). To is then that prompt's start.
	ScanTurn(path string, from Position, after int64) (*Analysis, error)
}

// ScanTurn scans path from `from` with a's scanner, ending before the
// next turn's prompt when a is a TurnScanner and after >= 0 (else at the
// end of the last complete entry).
func ScanTurn(a TranscriptScanner, path string, from Position, after int64) (*Analysis, error) {
	if ts, ok := a.(TurnScanner); ok && after >= 0 {
		return ts.ScanTurn(path, from, after)
	}
	return a.ScanTranscript(path, from)
}

// SubagentTokenReader is implemented by agents whose subagents write their
// own transcripts (Claude Code 2.0 and 2.1).
type SubagentTokenReader interface {
	// SubagentTokenUsage sums the token usage of the given subagents' whole
	// transcripts, found from the parent transcript's path. Subagents
	// without a transcript file are skipped; nil means none was found.
	SubagentTokenUsage(transcriptPath string, agentIDs []string) (*TokenUsage, error)
}

// AppendUnique appends s to list unless it is empty or already present.
func AppendUnique(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// RepoRelative makes transcript file paths relative to repoRoot, with forward
// slashes. Absolute paths are taken relative to the root (also via the root's
// symlink-resolved form); relative paths are resolved against cwd (itself
// relative to the root if not absolute; the root if empty). Paths outside the
// repository, the root itself and anything under .entire/ are dropped. Order
// is kept and duplicates removed. It does no I/O except resolving the root's
// symlinks once when a path does not fall under it lexically.
func RepoRelative(repoRoot, cwd string, paths []string) []string {
	root := filepath.Clean(repoRoot)
	base := root
	if cwd != "" {
		base = cwd
		if !filepath.IsAbs(base) {
			base = filepath.Join(root, base)
		}
	}
	realRoot := ""
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, abs)
		}
		abs = filepath.Clean(abs)
		rel, ok := within(root, abs)
		if !ok {
			if realRoot == "" {
				realRoot = root
				if r, err := filepath.EvalSymlinks(root); err == nil {
					realRoot = r
				}
			}
			rel, ok = within(realRoot, abs)
		}
		if !ok || rel == ".entire" || strings.HasPrefix(rel, ".entire/") {
			continue
		}
		out = AppendUnique(out, rel)
	}
	return out
}

func within(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// Sanitized returns p, or the zero Position if p has a negative field (such a
// position can only come from corrupt state; scanning restarts at the
// beginning).
func (p Position) Sanitized() Position {
	if p.Entries < 0 || p.Offset < 0 {
		return Position{}
	}
	return p
}

// TranscriptEnder is implemented by agents that can tell, from a whole
// transcript's content, the Position a scan from its start would end at
// (TranscriptScanner's To), without analysing every entry. A rewind uses it
// to put a session's cursor at the end of the transcript it wrote back.
type TranscriptEnder interface {
	// EndPosition returns the position just past the last complete entry
	// of content.
	EndPosition(content []byte) Position
}

// positionWindow bounds what PositionHolds reads before a position.
const positionWindow = 256 << 10

// PositionHolds reports whether a JSONL transcript of the given size,
// read through r, still holds p: p's offset falls just past a newline and,
// when p names its last entry, that entry's ID is among the bytes just
// before it. A file rewritten below the position and then grown past it
// again (a rewind restored it, then the agent appended) fails the test,
// so the scan restarts instead of reading from the middle of a line. A
// position inside one line longer than the window cannot be checked
// cheaply and is taken as holding. The zero Position and a position
// without offset always hold.
func PositionHolds(r io.ReaderAt, size int64, p Position) bool {
	if p.Offset <= 0 {
		return true
	}
	if p.Offset > size {
		return false
	}
	n := min(p.Offset, positionWindow)
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, p.Offset-n); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	if buf[n-1] != '\n' {
		return false
	}
	if p.LastID == "" || bytes.Contains(buf, []byte(p.LastID)) {
		return true
	}
	// No other line starts in the window: the last line is longer than
	// the window, and its ID may lie before it.
	return n == positionWindow && bytes.IndexByte(buf[:n-1], '\n') < 0
}
