package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/entirecli/entire/agent"
)

// SourceWindow is the size of the windows a SourceReader reads a source
// transcript in: 8 MiB of complete lines, or one longer line.
const SourceWindow = 8 << 20

// SourceReader reads the complete lines a source transcript gained after
// what a TranscriptState stored, window by window, so that a transcript
// that grew by any amount is read in bounded memory: every window ends at
// a line boundary and holds at most SourceWindow bytes, but for a single
// line longer than that, which is read into a buffer of its own size
// (found without holding it). A line longer than agent.MaxLine comes as
// an OmittedLine, as from ReadSource. Lines are read up to the size the
// file had when it was opened; a partial last line (the agent is still
// writing it) is left for later. A SourceReader is not safe for
// concurrent use; Close releases its file.
type SourceReader struct {
	f       *os.File
	path    string
	size    int64  // the file's size when opened: nothing past it is read
	pos     int64  // next byte to read
	end     int64  // just past the last line returned
	carry   []byte // the start of a line read with the previous window
	restart bool
	window  int
}

// OpenSource opens the source transcript at path for reading the lines
// after what st stored (nil: from the start), as ReadSource does: when the
// file no longer starts with what st stored, reading restarts from the
// start and Restart reports it.
func OpenSource(path string, st *TranscriptState) (*SourceReader, error) {
	return OpenSourceUpTo(path, st, -1)
}

// OpenSourceUpTo is OpenSource that reads no line starting at offset
// limit or later (limit < 0: no limit): the lines of one turn, when the
// agent may have written the next one's since (see agent.TurnScanner).
// limit is a line's start or the end of the file.
func OpenSourceUpTo(path string, st *TranscriptState, limit int64) (*SourceReader, error) {
	f, err := agent.OpenTranscript(path)
	if err != nil {
		return nil, fmt.Errorf("open transcript %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat transcript %s: %w", path, err)
	}
	r := &SourceReader{f: f, path: path, size: fi.Size(), window: SourceWindow}
	if st != nil && st.SourceOffset > 0 {
		r.pos = st.SourceOffset
		if r.size < r.pos || sourceTail(f, r.pos) != st.SourceTail {
			r.pos, r.restart = 0, true
		}
	}
	if limit >= 0 && !r.restart {
		r.size = max(min(r.size, limit), r.pos)
	} else if limit >= 0 {
		r.size = min(r.size, limit)
	}
	r.end = r.pos
	return r, nil
}

// Restart reports whether the source was rewritten since it was stored:
// the lines are read from its start.
func (r *SourceReader) Restart() bool { return r.restart }

// End returns the source offset just past the lines Next returned so far.
func (r *SourceReader) End() int64 { return r.end }

// Unread returns how many bytes of the source are left to read.
func (r *SourceReader) Unread() int64 { return r.size - r.end }

// Close closes the source file.
func (r *SourceReader) Close() error { return r.f.Close() }

// Next returns the next window of complete lines, each with its newline,
// in a buffer of its own that the caller may keep; io.EOF when no
// complete line is left.
func (r *SourceReader) Next() ([]byte, error) {
	for {
		avail := r.size - r.pos
		if avail <= 0 {
			return nil, io.EOF
		}
		buf := make([]byte, len(r.carry), len(r.carry)+int(min(avail, int64(r.window-len(r.carry)))))
		copy(buf, r.carry)
		n, err := io.ReadFull(io.NewSectionReader(r.f, r.pos, avail), buf[len(buf):cap(buf)])
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read transcript %s: %w", r.path, err)
		}
		buf = buf[:len(buf)+n]
		r.pos += int64(n)
		if n == 0 {
			return nil, io.EOF // the file shrank under us
		}
		if cut := bytes.LastIndexByte(buf, '\n') + 1; cut > 0 {
			r.carry = append([]byte(nil), buf[cut:]...)
			r.end += int64(cut)
			return buf[:cut], nil
		}
		if len(buf) < r.window {
			// The file ends inside a line that fits a window: it is
			// still being written.
			r.carry = buf
			continue
		}
		r.carry = nil
		return r.longLine()
	}
}

// longLine returns the line starting at r.end, longer than a window: read
// into a buffer of its exact size once its end is found, or an
// OmittedLine when it is longer than agent.MaxLine; io.EOF when it has no
// end yet.
func (r *SourceReader) longLine() ([]byte, error) {
	start := r.end
	probe := make([]byte, 1<<20)
	for pos := r.pos; pos < start+maxSourceRead+maxLineSkip; {
		n, err := r.f.ReadAt(probe[:min(int64(len(probe)), max(r.size-pos, 0))], pos)
		if i := bytes.IndexByte(probe[:n], '\n'); i >= 0 {
			end := pos + int64(i) + 1
			r.pos, r.end = end, end
			if end-start-1 >= maxSourceRead {
				return OmittedLine(end - start - 1), nil
			}
			line := make([]byte, end-start)
			if _, err := r.f.ReadAt(line, start); err != nil {
				return nil, fmt.Errorf("read transcript %s: %w", r.path, err)
			}
			return line, nil
		}
		pos += int64(n)
		if n == 0 || errors.Is(err, io.EOF) {
			r.pos = r.size
			return nil, io.EOF // the line is still being written
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript %s: %w", r.path, err)
		}
	}
	return nil, fmt.Errorf("read transcript %s: %w: a line longer than %d MiB", r.path, agent.ErrNotTranscript, (maxSourceRead+maxLineSkip)>>20)
}
