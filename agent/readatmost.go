package agent

import (
	"bytes"
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
// Input over 1 MiB (a pipe, whose size is not known in advance) goes
// through an unlinked temporary file, so that it is held once, in a slice
// of its own size, instead of in the ever larger copies a growing buffer
// leaves behind: reading 60 MB that way peaks at twice that or more.
func ReadAtMost(r io.Reader, limit int64) (data []byte, tooLarge bool, err error) {
	lr := io.LimitReader(r, limit+1)
	var head bytes.Buffer
	n, err := head.ReadFrom(io.LimitReader(lr, spoolAbove))
	if err != nil {
		return nil, false, err
	}
	if n < spoolAbove {
		if n > limit {
			return nil, true, nil
		}
		return head.Bytes(), false, nil
	}
	spooled, ok, err := spool(head.Bytes(), lr)
	if err != nil {
		return nil, false, err
	}
	if ok {
		data = spooled
	} else if data, err = io.ReadAll(io.MultiReader(bytes.NewReader(head.Bytes()), lr)); err != nil {
		return nil, false, err
	}
	if int64(len(data)) > limit {
		return nil, true, nil
	}
	return data, false, nil
}

// spool writes head and the rest of r to an unlinked temporary file, then
// reads it back into one slice of its size. ok is false, with no error and
// nothing of r read, when no temporary file can be made.
func spool(head []byte, r io.Reader) (data []byte, ok bool, err error) {
	f, ferr := os.CreateTemp("", "entire-input-*")
	if ferr != nil {
		return nil, false, nil
	}
	os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(head); err != nil {
		return nil, false, nil
	}
	// From here on r is being consumed: a failure is the caller's error.
	size, err := io.Copy(f, r)
	if err != nil {
		return nil, true, err
	}
	size += int64(len(head))
	data = make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, true, err
	}
	return data, true, nil
}
