// Package translog keeps, per agent session and on this machine only, two
// small logs of what the hooks stored of the session's transcript, so that
// the read paths need not read a whole transcript:
//
//   - prefix records (Prefix): for each stored transcript (named by its
//     content hash), the length and SHA-256 of the raw source prefix it was
//     redacted from, and the store's state. A rewind whose target transcript
//     is such a prefix of the live file cuts the file there instead of
//     writing the stored copy back, and an undo point keeps only the tail
//     it cut.
//   - condensed-entry batches (Batch): the [User]/[Assistant]/[Tool]
//     records of the lines each step stored, from which a condensation
//     writes the small summary the default `entire explain` view shows.
//
// The logs live in <git-common-dir>/entire-translog/, are never pushed, and
// hold nothing the stored (redacted) transcript does not: hashes, offsets
// and condensed entries of redacted lines. Losing them costs speed only:
// every reader falls back to the stored transcript.
package translog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/internal/atomicfile"
)

// DirName is the directory, in the git common directory, of the logs.
const DirName = "entire-translog"

// maxLog bounds the size of one log: an append to a larger one is dropped
// (readers then fall back), and a read reads no more.
const maxLog = 32 << 20

// Log is the logs of one session.
type Log struct {
	dir, session string
}

// New returns the logs of session sessionID in the repository whose git
// common directory is commonDir. It touches nothing.
func New(commonDir, sessionID string) *Log {
	return &Log{dir: filepath.Join(commonDir, DirName), session: sessionID}
}

func (l *Log) path(kind string) string {
	return filepath.Join(l.dir, l.session+"."+kind+".jsonl")
}

// Remove deletes the session's logs; missing ones are not an error.
func (l *Log) Remove() error {
	for _, k := range []string{prefixKind, batchKind} {
		if err := os.Remove(l.path(k)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove transcript log: %w", err)
		}
	}
	return nil
}

// appendLine appends one JSON line to the log kind, or replaces the log
// with it when reset is true. A log over maxLog is left as it is. One
// write(2) in append mode adds the line, so that the appends of
// concurrent hooks do not interleave.
func (l *Log) appendLine(kind string, v any, reset bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode transcript log: %w", err)
	}
	b = append(b, '\n')
	p := l.path(kind)
	if reset {
		if err := os.MkdirAll(l.dir, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", l.dir, err)
		}
		return atomicfile.Write(p, b, 0o600)
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", l.dir, err)
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open transcript log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat transcript log: %w", err)
	}
	if fi.Size()+int64(len(b)) > maxLog {
		return f.Close()
	}
	// A hook killed mid-append leaves a line without its newline: end it,
	// so that only that line is lost, not the one appended now.
	last := []byte{'\n'}
	if fi.Size() > 0 {
		if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
			last[0] = '\n'
		}
	}
	if last[0] != '\n' {
		b = append([]byte{'\n'}, b...)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write transcript log: %w", err)
	}
	return f.Close()
}

// readLines calls fn with each complete line of the log kind (at most
// maxLog bytes are read); a missing log has none.
func (l *Log) readLines(kind string, fn func([]byte)) error {
	f, err := os.Open(l.path(kind))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open transcript log: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, maxLog), 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			fn(bytes.TrimSuffix(line, []byte{'\n'}))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read transcript log: %w", err)
		}
	}
}

const (
	prefixKind = "prefix"
	batchKind  = "entries"
)

// Prefix records that a stored transcript, named by its content hash, is
// the redaction of the first Offset bytes of the live transcript file,
// whose SHA-256 is SHA256.
type Prefix struct {
	// ContentHash is the stored transcript's content hash
	// ("sha256:<hex>", as content_hash.txt holds it).
	ContentHash string `json:"content_hash"`
	// Lines is the number of lines stored.
	Lines int `json:"lines"`
	// Offset is the length of the raw source prefix.
	Offset int64 `json:"offset"`
	// SHA256 is the hex SHA-256 of the raw source prefix.
	SHA256 string `json:"sha256"`
	// Sum is the marshalled SHA-256 state after the prefix, from which
	// the hash of a longer prefix continues.
	Sum []byte `json:"sum"`
	// State is the store's state of the stored transcript (a
	// checkpoint.TranscriptState), which a rewind that cuts the live file
	// back to the prefix gives back to the session.
	State json.RawMessage `json:"state,omitempty"`
}

// AddPrefix appends p to the prefix records, or replaces them with it
// when reset is true (the transcript was stored anew from its start).
func (l *Log) AddPrefix(p Prefix, reset bool) error {
	return l.appendLine(prefixKind, p, reset)
}

// FindPrefix returns the newest prefix record of the stored transcript
// with content hash contentHash (and, when offset is not negative, that
// offset); false when there is none.
func (l *Log) FindPrefix(contentHash string, offset int64) (Prefix, bool) {
	var found Prefix
	ok := false
	_ = l.readLines(prefixKind, func(line []byte) {
		if !bytes.Contains(line, []byte(contentHash)) {
			return // another transcript's record: not decoded
		}
		var p Prefix
		if json.Unmarshal(line, &p) != nil || p.ContentHash != contentHash || (offset >= 0 && p.Offset != offset) {
			return
		}
		found, ok = p, true
	})
	return found, ok && found.Offset >= 0 && len(found.SHA256) == 64
}

// Batch is the condensed-entry records of the lines From..To-1 (0-based)
// of a JSONL transcript, stored by one step; Offset is the source offset
// the store reached. Records is the JSON array of the records (see
// condensed.Record).
type Batch struct {
	From    int             `json:"from"`
	To      int             `json:"to"`
	Offset  int64           `json:"offset"`
	Records json.RawMessage `json:"records"`
}

// AddBatch appends b to the batches, or replaces them with it when reset
// is true.
func (l *Log) AddBatch(b Batch, reset bool) error {
	return l.appendLine(batchKind, b, reset)
}

// Batches returns the batches in the order they were added; lines that
// cannot be decoded are skipped.
func (l *Log) Batches() ([]Batch, error) {
	var out []Batch
	err := l.readLines(batchKind, func(line []byte) {
		var b Batch
		if json.Unmarshal(line, &b) == nil {
			out = append(out, b)
		}
	})
	return out, err
}

// ReplaceBatches replaces the batches with bs (none: the log is removed).
func (l *Log) ReplaceBatches(bs []Batch) error {
	if len(bs) == 0 {
		if err := os.Remove(l.path(batchKind)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove transcript log: %w", err)
		}
		return nil
	}
	var buf bytes.Buffer
	for _, b := range bs {
		line, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("encode transcript log: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", l.dir, err)
	}
	return atomicfile.Write(l.path(batchKind), buf.Bytes(), 0o600)
}

// Contiguous returns the batches' records when they cover the lines from
// a line at or before start up to exactly to, with offset the source
// offset of the last, each batch starting where the one before it ends
// (the batches of a later restart from line 0 replace the earlier ones);
// false otherwise.
func Contiguous(bs []Batch, start, to int, offset int64) ([]json.RawMessage, bool) {
	first := -1
	for i, b := range bs {
		if b.From == 0 {
			first = i
		}
	}
	if first < 0 {
		// Pruned: the first batch starts at the scope kept.
		first = 0
	}
	if len(bs) == 0 || bs[first].From > start {
		return nil, false
	}
	var out []json.RawMessage
	at := bs[first].From
	for _, b := range bs[first:] {
		if b.From != at || b.To < b.From {
			return nil, false
		}
		out = append(out, b.Records)
		at = b.To
	}
	last := bs[len(bs)-1]
	return out, at == to && last.Offset == offset
}

// CutBatches drops the batches past line lines, as a rewind that cut the
// transcript back to its first lines lines (offset source bytes) leaves
// them; when no batch ends exactly there, the batches are removed.
func (l *Log) CutBatches(lines int, offset int64) error {
	bs, err := l.Batches()
	if err != nil || len(bs) == 0 {
		return err
	}
	var kept []Batch
	for _, b := range bs {
		if b.To > lines {
			break
		}
		kept = append(kept, b)
	}
	if n := len(kept); n == 0 || kept[n-1].To != lines || kept[n-1].Offset != offset {
		kept = nil
	}
	if len(kept) == len(bs) {
		return nil
	}
	return l.ReplaceBatches(kept)
}
