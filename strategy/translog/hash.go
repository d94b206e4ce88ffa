package translog

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
)

// copyBuf is the size of the reads that hash a file.
const copyBuf = 1 << 20

// newSum returns a SHA-256 continued from a marshalled state (nil: new).
func newSum(state []byte) (hash.Hash, error) {
	h := sha256.New()
	if len(state) == 0 {
		return h, nil
	}
	u, ok := h.(encoding.BinaryUnmarshaler)
	if !ok {
		return nil, errors.New("sha256 state cannot be restored")
	}
	if err := u.UnmarshalBinary(state); err != nil {
		return nil, fmt.Errorf("restore sha256 state: %w", err)
	}
	return h, nil
}

// marshalSum returns the state of h and its current hex digest.
func marshalSum(h hash.Hash) ([]byte, string, error) {
	m, ok := h.(encoding.BinaryMarshaler)
	if !ok {
		return nil, "", errors.New("sha256 state cannot be saved")
	}
	state, err := m.MarshalBinary()
	if err != nil {
		return nil, "", fmt.Errorf("save sha256 state: %w", err)
	}
	return state, hex.EncodeToString(h.Sum(nil)), nil
}

// Extend returns the prefix record of the first to bytes of the
// transcript file f, continuing from prev, the record of its first
// prev.Offset bytes (nil: from the start). It reads only the bytes between
// the two. The caller opens f (the hooks open a transcript only with
// agent.OpenTranscript).
func Extend(f io.ReaderAt, prev *Prefix, to int64) (Prefix, error) {
	var state []byte
	from := int64(0)
	if prev != nil {
		state, from = prev.Sum, prev.Offset
	}
	if to < from {
		return Prefix{}, fmt.Errorf("extend prefix hash: offset %d before %d", to, from)
	}
	h, err := newSum(state)
	if err != nil {
		return Prefix{}, err
	}
	n, err := io.CopyBuffer(h, io.NewSectionReader(f, from, to-from), make([]byte, copyBuf))
	if err == nil && n != to-from {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return Prefix{}, fmt.Errorf("hash transcript prefix: %w", err)
	}
	sum, hexSum, err := marshalSum(h)
	if err != nil {
		return Prefix{}, err
	}
	return Prefix{Offset: to, SHA256: hexSum, Sum: sum}, nil
}

// Match reports whether the file f starts with the prefix p (its first
// p.Offset bytes hash to p.SHA256), reading them in bounded memory, and
// returns the file's size. When whole is not nil, the SHA-256 of the
// file's first size bytes is written to it too (hex), computed in the
// same pass.
func Match(f *os.File, p Prefix, whole *string) (int64, bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, false, fmt.Errorf("stat transcript: %w", err)
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() || size < p.Offset || p.Offset <= 0 {
		return size, false, nil
	}
	h := sha256.New()
	buf := make([]byte, copyBuf)
	if n, err := io.CopyBuffer(h, io.NewSectionReader(f, 0, p.Offset), buf); err != nil || n != p.Offset {
		return size, false, err
	}
	if hex.EncodeToString(h.Sum(nil)) != p.SHA256 {
		return size, false, nil
	}
	if whole != nil {
		if n, err := io.CopyBuffer(h, io.NewSectionReader(f, p.Offset, size-p.Offset), buf); err != nil || n != size-p.Offset {
			return size, false, err
		}
		*whole = hex.EncodeToString(h.Sum(nil))
	}
	return size, true, nil
}
