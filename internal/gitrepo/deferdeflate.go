package gitrepo

import (
	"bufio"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
)

// A hook that stores tens of megabytes at once (a 60 MB tool output kept
// as a hide) would spend most of its time deflating them while the agent
// waits. A Repo told to defer deflation (DeferDeflation) writes the
// objects of a megabyte or more, and any past its deflate budget
// (deflateFastAfter), as zlib streams of stored blocks: valid loose objects that git reads as any other, written
// at the speed of a copy. Deferred lists them, and CompressLoose, run
// later by a process of its own, rewrites each deflated: same object, same
// name, a file a fifth the size. An object never compressed (that process
// was killed) stays a valid object until git gc packs it.

// deferAbove is the size from which a Repo that defers deflation writes
// every object undeflated; smaller ones only past its deflate budget.
const deferAbove = 1 << 20

// storedBlock is the largest block of a stored deflate stream.
const storedBlock = 65535

// deferState is what a Repo that defers deflation keeps.
type deferState struct {
	mu      sync.Mutex
	on      bool
	objects []plumbing.Hash
}

// DeferDeflation makes the Repo write large objects, and any past its
// deflate budget, undeflated, for CompressLoose to deflate later (see above).
func (r *Repo) DeferDeflation() {
	r.deferral.mu.Lock()
	r.deferral.on = true
	r.deferral.mu.Unlock()
}

// Deferred returns the objects written undeflated since DeferDeflation.
func (r *Repo) Deferred() []plumbing.Hash {
	r.deferral.mu.Lock()
	defer r.deferral.mu.Unlock()
	return append([]plumbing.Hash(nil), r.deferral.objects...)
}

// deferring reports whether an object of size bytes is written
// undeflated, and counts it against the deflate budget when it is.
func (r *Repo) deferring(size int64) bool {
	r.deferral.mu.Lock()
	on := r.deferral.on
	r.deferral.mu.Unlock()
	if !on || size < deferAbove && r.deflated.Load()+size <= deflateFastAfter {
		return false
	}
	r.deflated.Add(size)
	return true
}

// writeStoredLoose writes body, of type t, as a loose object of stored
// deflate blocks, unless the object exists, and records it as deferred.
func (r *Repo) writeStoredLoose(t plumbing.ObjectType, body string) (plumbing.Hash, error) {
	header := objectHeader(t, int64(len(body)))
	// The two checksums on both cores: each is a pass over the text.
	var check uint32
	done := make(chan struct{})
	go func() {
		defer close(done)
		a := adler32.New()
		a.Write([]byte(header))
		a.Write(stringBytes(body))
		check = a.Sum32()
	}()
	sum := sha1.New()
	sum.Write([]byte(header))
	sum.Write(stringBytes(body))
	var h plumbing.Hash
	copy(h[:], sum.Sum(nil))
	<-done
	dst := looseObjectPath(r.objectsDir(), h)
	if _, err := os.Stat(dst); err == nil {
		return h, nil // stored before, maybe deflated: keep that
	}
	tmp, err := atomicfile.Create(r.objectsDir(), atomicfile.Options{
		Perm: 0o444, Sync: atomicfile.SyncNone, DirPerm: 0o755, TempPattern: "tmp_obj_*",
	})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer tmp.Abort()
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := writeStoredStream(w, []string{header, body}, check); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Flush(); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := tmp.Commit(dst); err != nil {
		return plumbing.ZeroHash, err
	}
	r.deferral.mu.Lock()
	r.deferral.objects = append(r.deferral.objects, h)
	r.deferral.mu.Unlock()
	return h, nil
}

// writeStoredStream writes the zlib stream of the concatenation of text in
// stored blocks, ending with check, its Adler-32.
func writeStoredStream(w io.Writer, text []string, check uint32) error {
	total := 0
	for _, t := range text {
		total += len(t)
	}
	if _, err := w.Write(zlibHeader[:]); err != nil {
		return err
	}
	piece, off := 0, 0
	for left := total; ; {
		n := min(left, storedBlock)
		left -= n
		var head [5]byte
		if left == 0 {
			head[0] = 1 // BFINAL, BTYPE 00 (stored)
		}
		binary.LittleEndian.PutUint16(head[1:], uint16(n))
		binary.LittleEndian.PutUint16(head[3:], ^uint16(n))
		if _, err := w.Write(head[:]); err != nil {
			return err
		}
		for n > 0 {
			for off == len(text[piece]) {
				piece, off = piece+1, 0
			}
			k := min(n, len(text[piece])-off)
			if _, err := w.Write(stringBytes(text[piece][off : off+k])); err != nil {
				return err
			}
			off += k
			n -= k
		}
		if left == 0 {
			break
		}
	}
	_, err := w.Write(binary.BigEndian.AppendUint32(nil, check))
	return err
}

// CompressLoose rewrites each of the loose objects deflated at the default
// level, in place: the same object under the same name (a rename over the
// old file, which a reader that has it open keeps reading). An object that
// is no longer loose (packed, pruned) is skipped; one whose content does
// not hash to its name is left alone and reported.
func (r *Repo) CompressLoose(objects []plumbing.Hash) error {
	var firstErr error
	for _, h := range objects {
		t, data, err := readLooseObject(r.objectsDir(), h)
		if os.IsNotExist(err) {
			continue
		}
		if err == nil && HashObject(t, data) != h {
			err = fmt.Errorf("object %s does not hash to its name", h)
		}
		if err == nil {
			_, err = r.writeLooseAt(t, stringOf(data), zlib.DefaultCompression)
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("compress object %s: %w", h, err)
		}
	}
	return firstErr
}

// stringOf returns b as a string without a copy; b must not change after.
func stringOf(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
