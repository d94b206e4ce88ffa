package gitrepo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// indexTreeRoot returns the root of the cache-tree extension (TREE) of the
// index file at path: the tree its stage-0 entries make, and false when the
// index has no valid root (no extension, a root invalidated by a staged
// change, an unmerged path). Only the fixed-size parts of the entries are
// read past, a buffer at a time, so that checking an index of 100k files
// costs a read of the file and no allocation per entry. Versions 2 to 4
// and SHA-1 object names are understood; anything else is an error.
func indexTreeRoot(path string) (plumbing.Hash, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	return readIndexTreeRoot(bufio.NewReaderSize(f, 64<<10), fi.Size())
}

// Sizes of the on-disk index format.
const (
	indexHeaderSize   = 12
	indexEntryFixed   = 62 // stat data, mode, object name, flags
	indexHashSize     = 20 // SHA-1: object names and the trailing checksum
	indexFlagExtended = 0x4000
	indexNameMask     = 0x0fff
)

var errIndexFormat = errors.New("index: unsupported or corrupt format")

// readIndexTreeRoot is indexTreeRoot on an index of size bytes read from r.
func readIndexTreeRoot(r *bufio.Reader, size int64) (plumbing.Hash, bool, error) {
	var hdr [indexHeaderSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("index header: %w", err)
	}
	if string(hdr[:4]) != "DIRC" {
		return plumbing.ZeroHash, false, errIndexFormat
	}
	version := binary.BigEndian.Uint32(hdr[4:8])
	if version < 2 || version > 4 {
		return plumbing.ZeroHash, false, errIndexFormat
	}
	count := binary.BigEndian.Uint32(hdr[8:12])
	pos := int64(indexHeaderSize)
	var fixed [indexEntryFixed + 2]byte
	for i := uint32(0); i < count; i++ {
		if _, err := io.ReadFull(r, fixed[:indexEntryFixed]); err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("index entry %d: %w", i, err)
		}
		n := int64(indexEntryFixed)
		flags := binary.BigEndian.Uint16(fixed[60:62])
		if flags&indexFlagExtended != 0 {
			if version < 3 {
				return plumbing.ZeroHash, false, errIndexFormat
			}
			if _, err := io.ReadFull(r, fixed[indexEntryFixed:]); err != nil {
				return plumbing.ZeroHash, false, fmt.Errorf("index entry %d: %w", i, err)
			}
			n += 2
		}
		if version == 4 {
			// A varint (bytes to drop from the previous name), then the
			// rest of the name, NUL-terminated; no padding.
			for {
				b, err := r.ReadByte()
				if err != nil {
					return plumbing.ZeroHash, false, fmt.Errorf("index entry %d: %w", i, err)
				}
				n++
				if b&0x80 == 0 {
					break
				}
			}
			k, err := skipPast(r, 0)
			if err != nil {
				return plumbing.ZeroHash, false, fmt.Errorf("index entry %d: %w", i, err)
			}
			pos += n + k
			continue
		}
		// Versions 2 and 3: the name, then 1 to 8 NULs so that the entry
		// is a multiple of 8 bytes long.
		nameLen := int64(flags & indexNameMask)
		if nameLen == indexNameMask {
			k, err := skipPast(r, 0) // a long name: up to its NUL
			if err != nil {
				return plumbing.ZeroHash, false, fmt.Errorf("index entry %d: %w", i, err)
			}
			nameLen = k - 1
			total := (n + nameLen + 8) &^ 7
			if _, err := r.Discard(int(total - n - k)); err != nil {
				return plumbing.ZeroHash, false, fmt.Errorf("index entry %d: %w", i, err)
			}
			pos += total
			continue
		}
		total := (n + nameLen + 8) &^ 7
		if _, err := r.Discard(int(total - n)); err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("index entry %d: %w", i, err)
		}
		pos += total
	}
	// Extensions, up to the trailing checksum.
	for pos+8 <= size-indexHashSize {
		var ext [8]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("index extension: %w", err)
		}
		extSize := int64(binary.BigEndian.Uint32(ext[4:]))
		pos += 8
		if extSize > size-indexHashSize-pos {
			return plumbing.ZeroHash, false, errIndexFormat
		}
		if string(ext[:4]) == "TREE" {
			return treeExtensionRoot(r, extSize)
		}
		if _, err := r.Discard(int(extSize)); err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("index extension: %w", err)
		}
		pos += extSize
	}
	return plumbing.ZeroHash, false, nil
}

// skipPast reads up to and including the next delim and returns how many
// bytes that was.
func skipPast(r *bufio.Reader, delim byte) (int64, error) {
	var n int64
	for {
		chunk, err := r.ReadSlice(delim)
		n += int64(len(chunk))
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}

// treeExtensionRoot reads the first entry of a TREE extension of size
// bytes, the root's: "" NUL, "<entries> <subtrees>" LF, then the tree's
// object name when <entries> is not -1.
func treeExtensionRoot(r *bufio.Reader, size int64) (plumbing.Hash, bool, error) {
	data := make([]byte, min(size, 256))
	if _, err := io.ReadFull(r, data); err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("index TREE extension: %w", err)
	}
	if len(data) == 0 || data[0] != 0 {
		return plumbing.ZeroHash, false, errIndexFormat // the root's name is empty
	}
	line, rest, ok := bytes.Cut(data[1:], []byte{'\n'})
	if !ok {
		return plumbing.ZeroHash, false, errIndexFormat
	}
	entries, _, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return plumbing.ZeroHash, false, errIndexFormat
	}
	n, err := strconv.Atoi(string(entries))
	if err != nil {
		return plumbing.ZeroHash, false, errIndexFormat
	}
	if n < 0 {
		return plumbing.ZeroHash, false, nil
	}
	if len(rest) < indexHashSize {
		return plumbing.ZeroHash, false, errIndexFormat
	}
	var h plumbing.Hash
	copy(h[:], rest[:indexHashSize])
	return h, true, nil
}
