package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// spoolAbove is the input size from which ReadAtMost spools its input
// through a temporary file.
const spoolAbove = 1 << 20

// ReadAtMost reads r to its end, but never more than limit+1 bytes: input
// longer than limit bytes gives tooLarge true and no data, having read only
// that much of it, so a caller can refuse it with its own error without
// ever holding more than limit+1 bytes. A read error is returned as it is
// (with no data), before any size check.
//
// A regular file (an *os.File) is read into a slice of its size. Other
// input over 1 MiB (a pipe, whose size is not known in advance) goes
// through a temporary file (unlinked at once where the system allows it,
// else removed once read), so that it is held once, in a slice
// of its own size, instead of in the ever larger copies a growing buffer
// leaves behind: reading 60 MB that way peaks at twice that or more.
func ReadAtMost(r io.Reader, limit int64) (data []byte, tooLarge bool, err error) {
	lr := io.LimitReader(r, limit+1)
	if size, ok := regularSize(r); ok {
		var b bytes.Buffer
		// As os.ReadFile: room for one more read, which finds the end.
		b.Grow(int(min(size, limit+1)) + bytes.MinRead)
		if _, err := b.ReadFrom(lr); err != nil {
			return nil, false, err
		}
		if int64(b.Len()) > limit {
			return nil, true, nil
		}
		return b.Bytes(), false, nil
	}
	head, whole, tooLarge, err := readHead(lr, limit)
	if err != nil || tooLarge || whole {
		return head, tooLarge, err
	}
	var spooled []byte
	ok := false
	if f, ferr := os.CreateTemp("", "entire-input-*"); ferr == nil {
		unlinked := os.Remove(f.Name()) == nil // not on Windows, while open
		spooled, ok, err = spool(f, head, lr)
		f.Close()
		if !unlinked {
			os.Remove(f.Name())
		}
		if err != nil {
			return nil, false, err
		}
	}
	if ok {
		data = spooled
	} else if data, err = io.ReadAll(io.MultiReader(bytes.NewReader(head), lr)); err != nil {
		return nil, false, err
	}
	if int64(len(data)) > limit {
		return nil, true, nil
	}
	return data, false, nil
}

// regularSize returns the size of r when it is a regular file.
func regularSize(r io.Reader) (int64, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	return fi.Size(), true
}

// spoolFile is what spool needs of its temporary file.
type spoolFile interface {
	io.Writer
	io.ReaderAt
}

// spool writes head and the rest of r to f, an empty temporary file, then
// reads it back into one slice of its size. ok is false, with no error
// and nothing of r read, when f cannot take head. When f cannot take the
// rest of r (a full disk), what it holds is read back and the rest of r
// read in memory.
func spool(f spoolFile, head []byte, r io.Reader) (data []byte, ok bool, err error) {
	if _, err := f.Write(head); err != nil {
		return nil, false, nil
	}
	// From here on r is being consumed: a read failure is the caller's
	// error.
	size := int64(len(head))
	buf := make([]byte, 256<<10)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if _, werr := f.Write(buf[:n]); werr != nil {
				// f is full: what it holds, this piece and the rest of
				// r are read into memory.
				held := make([]byte, size, size+int64(n))
				if _, err := f.ReadAt(held, 0); err != nil {
					return nil, true, err
				}
				rest, err := io.ReadAll(r)
				return append(append(held, buf[:n]...), rest...), true, err
			}
			size += int64(n)
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, true, rerr
		}
	}
	data = make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, true, err
	}
	return data, true, nil
}

// errTooLarge is readMapped's word for input over its limit.
var errTooLarge = errors.New("input over the limit")

// readHookPayload is ReadAtMost for a hook's payload, which a process
// reads once: input over 1 MiB from a pipe is read into memory mapped for
// it where the system allows (readMapped), else spooled as ReadAtMost
// does.
func readHookPayload(r io.Reader, limit int64) (data []byte, tooLarge bool, err error) {
	if _, regular := regularSize(r); regular {
		return ReadAtMost(r, limit)
	}
	lr := io.LimitReader(r, limit+1)
	head, whole, tooLarge, err := readHead(lr, limit)
	if err != nil || tooLarge || whole {
		return head, tooLarge, err
	}
	data, ok, err := readMapped(head, lr, limit)
	switch {
	case !ok:
		return ReadAtMost(io.MultiReader(bytes.NewReader(head), lr), limit)
	case errors.Is(err, errTooLarge):
		return nil, true, nil
	case err != nil:
		return nil, false, err
	}
	return data, false, nil
}

// readHead reads the first spoolAbove bytes of lr (r limited to limit+1
// bytes): whole reports that they are all of it (tooLarge, that they are
// more than limit), else the caller reads the rest.
func readHead(lr io.Reader, limit int64) (head []byte, whole, tooLarge bool, err error) {
	var b bytes.Buffer
	n, err := b.ReadFrom(io.LimitReader(lr, spoolAbove))
	if err != nil {
		return nil, false, false, err
	}
	if n < spoolAbove {
		if n > limit {
			return nil, true, true, nil
		}
		return b.Bytes(), true, false, nil
	}
	return b.Bytes(), false, false, nil
}
