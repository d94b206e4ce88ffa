package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotTranscript is returned (wrapped) for a transcript path that is not
// a regular file (a FIFO, a device such as /dev/zero, a directory), whose
// first line is not the agent's transcript format, or that is too large
// to be read whole. Hook payloads name the path: it may be anything.
var ErrNotTranscript = errors.New("agent: not a transcript")

// MaxWholeTranscript bounds what ReadTranscriptFile reads: a transcript
// read whole (a Gemini CLI JSON document, a subagent transcript) larger
// than this is refused rather than held in memory.
const MaxWholeTranscript = 128 << 20

// maxSniffLine bounds the first line TranscriptFirstLine reads.
const maxSniffLine = 16 << 20

// OpenTranscript opens the transcript at path for reading, the only way
// the hooks open a transcript: the open does not block (O_NONBLOCK, so a
// FIFO with no writer cannot hang the hook), and anything but a regular
// file is refused with an error wrapping ErrNotTranscript, after an fstat
// of the opened file (so a symlink swapped meanwhile changes nothing). A
// missing file is an error wrapping fs.ErrNotExist.
func OpenTranscript(path string) (*os.File, error) {
	return openRegular(path, "transcript", ErrNotTranscript)
}

// openRegular opens the file at path for reading as OpenTranscript
// describes, naming it noun in errors; anything but a regular file is
// refused with an error wrapping notRegular.
func openRegular(path, noun string, notRegular error) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s %s: %w", noun, path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file (%v)", notRegular, path, fi.Mode().Type())
	}
	if err := clearNonBlock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s %s: %w", noun, path, err)
	}
	return f, nil
}

// ReadTranscriptFile reads a whole transcript opened with OpenTranscript,
// refusing (ErrNotTranscript) one larger than MaxWholeTranscript.
func ReadTranscriptFile(path string) ([]byte, error) {
	f, err := OpenTranscript(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, tooLarge, err := ReadAtMost(f, MaxWholeTranscript)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	if tooLarge {
		return nil, fmt.Errorf("%w: %s is larger than %d MiB", ErrNotTranscript, path, MaxWholeTranscript>>20)
	}
	return data, nil
}

// TranscriptSniffer is implemented by agents that can tell their own
// transcript format from its first complete line. Only the agent packages
// know formats; the hooks ask them through CheckTranscript.
type TranscriptSniffer interface {
	// SniffTranscript returns an error when line (the first complete line
	// of a transcript, without its newline) cannot begin one of the
	// agent's transcripts.
	SniffTranscript(line []byte) error
}

// CheckTranscript refuses a transcript path that the hooks must not read:
// not a regular file (see OpenTranscript), or, when a implements
// TranscriptSniffer, a first complete line it rejects or longer than
// 16 MiB. A file without a complete line yet (the agent has not flushed
// it) passes. Errors wrap ErrNotTranscript, or fs.ErrNotExist for a
// missing file, which callers may accept.
func CheckTranscript(a Agent, path string) error {
	f, err := OpenTranscript(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sn, ok := a.(TranscriptSniffer)
	if !ok {
		return nil
	}
	line, complete, err := firstLine(f)
	if err != nil {
		return fmt.Errorf("read transcript %s: %w", path, err)
	}
	if !complete {
		if len(line) >= maxSniffLine {
			return fmt.Errorf("%w: %s has no line end in its first %d MiB", ErrNotTranscript, path, maxSniffLine>>20)
		}
		return nil
	}
	if err := sn.SniffTranscript(line); err != nil {
		return fmt.Errorf("%w: %s is not a %s transcript: %v", ErrNotTranscript, path, a.Type(), err)
	}
	return nil
}

// firstLine reads r up to its first newline, at most maxSniffLine bytes;
// complete says whether a newline was found.
func firstLine(r io.Reader) (line []byte, complete bool, err error) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxSniffLine), 64<<10)
	var buf bytes.Buffer
	for {
		chunk, rerr := br.ReadSlice('\n')
		buf.Write(chunk)
		switch {
		case rerr == nil:
			return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case errors.Is(rerr, io.EOF):
			return buf.Bytes(), false, nil
		default:
			return nil, false, rerr
		}
	}
}
