package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// lineReaderSize is the read buffer of ForEachLine; a longer line is
// gathered from pieces of that size and joined once, so a line of n bytes
// costs 2n at most while it is joined.
const lineReaderSize = 256 << 10

// MaxLine bounds the length of a line ForEachLine assembles, and so the
// memory a transcript scan takes whatever the file holds. A longer line is
// skipped (see ForEachLine); checkpoint.ReadSource stores such a line as
// an OmittedLine.
const MaxLine = 64 << 20

// ForEachLine calls fn for every complete (newline-terminated) line read from
// r, without the newline (a trailing "\r" is kept). The slice passed to fn is
// only valid during the call. A final line without a newline is not a complete
// line: it is neither passed to fn nor counted, so a transcript that is still
// being written is consumed only up to its last newline.
//
// It returns the number of bytes consumed (just past the last newline) and the
// number of lines. If fn returns an error, iteration stops and that error is
// returned (with the counts so far, excluding the failing line). A line
// longer than MaxLine is counted and consumed but not passed to fn: it is
// read past in pieces, never held whole, so a scan's memory stays bounded
// and one huge line does not stop every later scan.
func ForEachLine(r io.Reader, fn func(line []byte) error) (consumed int64, lines int, err error) {
	return forEachLine(r, func(line []byte, _ int64) error { return fn(line) }, false)
}

// forEachLine is ForEachLine, fn getting each line's start (its offset in
// what r reads); with brief, a line longer than BriefAbove is shortened
// as it is read (see ForEachBriefLine).
func forEachLine(r io.Reader, fn func(line []byte, start int64) error, brief bool) (consumed int64, lines int, err error) {
	br := bufio.NewReaderSize(r, lineReaderSize)
	var short *Briefer  // the line under way, shortened
	var pieces [][]byte // the start of a line longer than the buffer
	size := 0
	skipping := false // the line under way is longer than MaxLine
	for {
		chunk, rerr := br.ReadSlice('\n')
		switch {
		case rerr == nil && skipping:
			consumed += int64(size + len(chunk))
			lines++
			size, skipping = 0, false
		case rerr == nil && short != nil:
			short.Write(chunk[:len(chunk)-1])
			if err := fn(short.Line(), consumed); err != nil {
				return consumed, lines, err
			}
			consumed += int64(size + len(chunk))
			lines++
			size, short = 0, nil
		case rerr == nil:
			line := chunk
			if pieces != nil {
				line = make([]byte, 0, size+len(chunk))
				for _, p := range pieces {
					line = append(line, p...)
				}
				line = append(line, chunk...)
				pieces, size = nil, 0
			}
			if err := fn(line[:len(line)-1], consumed); err != nil {
				return consumed, lines, err
			}
			consumed += int64(len(line))
			lines++
		case errors.Is(rerr, bufio.ErrBufferFull):
			size += len(chunk)
			switch {
			case skipping:
			case size > MaxLine:
				pieces, skipping, short = nil, true, nil
			case short != nil:
				short.Write(chunk)
			case brief && size > BriefAbove:
				short = &Briefer{}
				for _, p := range pieces {
					short.Write(p)
				}
				short.Write(chunk)
				pieces = nil
			default:
				pieces = append(pieces, bytes.Clone(chunk))
			}
		case errors.Is(rerr, io.EOF):
			return consumed, lines, nil
		default:
			return consumed, lines, fmt.Errorf("read line: %w", rerr)
		}
	}
}

// JSONLEnd returns the Position at the end of JSONL content's last complete
// line: the line count, the offset just past that line's newline, and the
// last ID that lastID finds, trying lines from the end until one has one.
// It is how agents compute TranscriptEnder.EndPosition for JSONL.
func JSONLEnd(content []byte, lastID func(line []byte) string) Position {
	end := bytes.LastIndexByte(content, '\n') + 1
	p := Position{Entries: bytes.Count(content[:end], []byte{'\n'}), Offset: int64(end)}
	rest := content[:max(end-1, 0)]
	for len(rest) > 0 && p.LastID == "" {
		line := rest
		if i := bytes.LastIndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[i+1:], rest[:i]
		} else {
			rest = nil
		}
		p.LastID = lastID(line)
	}
	return p
}
