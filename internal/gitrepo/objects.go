package gitrepo

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/klauspost/compress/zlib"
)

// streamAbove is the file size from which WriteBlobFile streams a file
// instead of reading it into memory.
const streamAbove = 1 << 20

// Objects are deflated with klauspost/compress: on the Claude Code fixture
// transcripts (10.9 MB) its default level runs at 152 MB/s for a 5.13x
// ratio, where the standard library's compress/zlib runs at 65 MB/s for
// 5.27x; its level 2 runs at 244 MB/s for 4.52x (the standard library's:
// 129 MB/s). See BenchmarkDeflate. Objects get the default level (5)
// until a Repo has written deflateFastAfter bytes, and level 2 from then
// on. A turn's transcript (6 MB a turn on the shared bench's large
// scenario) is stored small: at level 2 throughout, that run's .git growth
// was 59.4 MB against 56.2 MB at level 5, over the 1.2x of plain git's
// (48.5 MB) the storage target allows, for 16 ms of a 272 ms stop. A hook
// storing far more at once (a 60 MB tool result, a turn that added 75 MB)
// is kept under its time bound instead: level 5 costs it about 0.4 s more.
const deflateFastAfter = 16 << 20

// deflateFastLevel is the level past deflateFastAfter.
const deflateFastLevel = 2

// NewDeflateBudget starts the count of deflateFastAfter again: a process
// that stores one turn after another (the turn finisher) deflates each as
// a hook storing it alone would.
func (r *Repo) NewDeflateBudget() { r.deflated.Store(0) }

// HasObject reports whether the object h exists (loose or packed).
func (r *Repo) HasObject(h plumbing.Hash) bool {
	return r.storage.HasEncodedObject(h) == nil
}

// ObjectSize returns the inflated size of object h without reading its body.
func (r *Repo) ObjectSize(h plumbing.Hash) (int64, error) {
	n, err := r.storage.EncodedObjectSize(h)
	if err != nil {
		return 0, fmt.Errorf("size of object %s: %w", h, err)
	}
	return n, nil
}

// WriteBlob stores data as a blob and returns its hash. An existing object is
// not written again.
func (r *Repo) WriteBlob(data []byte) (plumbing.Hash, error) {
	return r.writeObject(plumbing.BlobObject, data)
}

// WriteBlobString is WriteBlob of a string, which it does not copy.
func (r *Repo) WriteBlobString(data string) (plumbing.Hash, error) {
	// Written without looking for the blob first, which would hash it
	// twice: an object that exists is replaced by the same bytes.
	h, err := r.writeLooseText(plumbing.BlobObject, data)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	return h, nil
}

// WriteBlobFile stores the content of the file at path as a blob, streaming
// it: a file of any size needs a fixed amount of memory. The file is read
// twice when the blob is new (once to hash, once to compress), which on a
// warm page cache is cheaper than compressing content git already has.
func (r *Repo) WriteBlobFile(path string) (plumbing.Hash, error) {
	f, size, err := openFile(path, false)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	return r.writeBlobFrom(f, size, path)
}

// writeBlobFrom is WriteBlobFile of an open file of size bytes.
func (r *Repo) writeBlobFrom(f *os.File, size int64, path string) (plumbing.Hash, error) {
	if size <= streamAbove {
		data, err := io.ReadAll(f)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read %s: %w", path, err)
		}
		return r.WriteBlob(data)
	}
	h, err := hashStream(plumbing.BlobObject, f, size)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("hash %s: %w", path, err)
	}
	if r.HasObject(h) {
		return h, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("rewind %s: %w", path, err)
	}
	got, err := r.writeLoose(plumbing.BlobObject, f, size)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob %s: %w", path, err)
	}
	if got != h {
		return plumbing.ZeroHash, fmt.Errorf("write blob %s: file changed while it was stored", path)
	}
	return h, nil
}

// openFile opens a file for reading and returns its size; with noFollow,
// a symbolic link at path is an error (see OpenNoFollow).
func openFile(path string, noFollow bool) (*os.File, int64, error) {
	open := os.Open
	if noFollow {
		open = OpenNoFollow
	}
	f, err := open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("stat %s: %w", path, err)
	}
	return f, fi.Size(), nil
}

// WriteTree stores t (whose entries must already be in git's order) and
// returns its hash.
func (r *Repo) WriteTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	var buf bytes.Buffer
	for _, e := range entries {
		buf.WriteString(strconv.FormatUint(uint64(e.Mode), 8))
		buf.WriteByte(' ')
		buf.WriteString(e.Name)
		buf.WriteByte(0)
		buf.Write(e.Hash[:])
	}
	return r.writeObject(plumbing.TreeObject, buf.Bytes())
}

// WriteCommit stores c and returns its hash.
func (r *Repo) WriteCommit(c *object.Commit) (plumbing.Hash, error) {
	obj := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	return r.writeObject(plumbing.CommitObject, data)
}

// ReadBlob returns the content of blob h. A loose blob is inflated
// directly (go-git's loose-object reader runs at a fraction of the speed,
// which shows on multi-megabyte transcript chunks); packed ones are read
// through go-git.
func (r *Repo) ReadBlob(h plumbing.Hash) ([]byte, error) {
	if data, ok := r.readLooseBlob(h); ok {
		return data, nil
	}
	b, err := r.Git.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return data, nil
}

// ReadLooseBlob returns blob h when it is a loose object, false when it is
// not (read it with ReadBlob). Unlike ReadBlob it does not go through
// go-git's storage, and is safe for concurrent use.
func (r *Repo) ReadLooseBlob(h plumbing.Hash) ([]byte, bool) { return r.readLooseBlob(h) }

// readLooseBlob reads blob h from its loose object file; ok is false when
// there is no such file or it is not a well-formed blob (the caller then
// asks go-git, which reports the error).
func (r *Repo) readLooseBlob(h plumbing.Hash) (data []byte, ok bool) {
	t, data, err := readLooseObject(r.objectsDir(), h)
	return data, err == nil && t == plumbing.BlobObject
}

// writeObject stores data of type t unless an object with its hash exists.
func (r *Repo) writeObject(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := HashObject(t, data)
	if r.HasObject(h) {
		return h, nil
	}
	if _, err := r.writeLooseText(t, unsafe.String(unsafe.SliceData(data), len(data))); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write %s %s: %w", t, h, err)
	}
	return h, nil
}

// writeLoose deflates size bytes of src into a loose object the way git
// does: to a temporary file in the objects directory, then renamed to
// objects/xx/yyyy. It returns the hash of what it wrote.
func (r *Repo) writeLoose(t plumbing.ObjectType, src io.Reader, size int64) (plumbing.Hash, error) {
	return r.writeLooseStream(t, src, size, r.budgetLevel(size))
}

// writeLooseStream is writeLoose at level.
func (r *Repo) writeLooseStream(t plumbing.ObjectType, src io.Reader, size int64, level int) (plumbing.Hash, error) {
	return r.writeLooseWith(size, level, func(w io.Writer, level int) (plumbing.Hash, error) {
		zw, err := r.zlibWriter(w, level)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		defer r.putZlibWriter(zw, level)
		hasher := sha1.New()
		mw := io.MultiWriter(zw, hasher)
		if _, err := io.WriteString(mw, objectHeader(t, size)); err != nil {
			return plumbing.ZeroHash, err
		}
		n, err := io.Copy(mw, src)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if n != size {
			return plumbing.ZeroHash, fmt.Errorf("object body is %d bytes, expected %d", n, size)
		}
		if err := zw.Close(); err != nil {
			return plumbing.ZeroHash, err
		}
		var h plumbing.Hash
		copy(h[:], hasher.Sum(nil))
		return h, nil
	})
}

// zlibWriter returns a deflater at level writing to w: one this Repo used
// before, reset, when there is one. A new one costs about a millisecond
// (its tables are hundreds of kilobytes, allocated and cleared), which a
// turn end writing a few dozen small trees and blobs paid for each.
func (r *Repo) zlibWriter(w io.Writer, level int) (*zlib.Writer, error) {
	if i, ok := zlibPool(level); ok {
		if zw, ok := r.zlibWriters[i].Get().(*zlib.Writer); ok {
			zw.Reset(w)
			return zw, nil
		}
	}
	return zlib.NewWriterLevel(w, level)
}

// putZlibWriter keeps zw, made at level, for the next object.
func (r *Repo) putZlibWriter(zw *zlib.Writer, level int) {
	if i, ok := zlibPool(level); ok {
		r.zlibWriters[i].Put(zw)
	}
}

// zlibPool is the index of level's pool: the default level's, or the
// fast one's (deflateFastAfter); none for another level.
func zlibPool(level int) (int, bool) {
	switch level {
	case zlib.DefaultCompression:
		return 0, true
	case deflateFastLevel:
		return 1, true
	}
	return 0, false
}

// writeLooseText is writeLoose of an object held in memory: a large one
// is deflated on every core (writeDeflatedBlocks), or not at all when the
// Repo defers deflation (see DeferDeflation).
func (r *Repo) writeLooseText(t plumbing.ObjectType, body string) (plumbing.Hash, error) {
	size := int64(len(body))
	if r.deferring(size) {
		return r.writeStoredLoose(t, body)
	}
	return r.writeLooseAt(t, body, r.budgetLevel(size))
}

// writeLooseAt is writeLooseText deflating at level.
func (r *Repo) writeLooseAt(t plumbing.ObjectType, body string, level int) (plumbing.Hash, error) {
	size := int64(len(body))
	if !deflateInBlocks(size) {
		// Through a plain reader: io.Copy and io.WriteString would hand
		// the whole string to writers without WriteString as one []byte
		// copy.
		type plainReader struct{ io.Reader }
		return r.writeLooseStream(t, plainReader{strings.NewReader(body)}, size, level)
	}
	return r.writeLooseWith(size, level, func(w io.Writer, level int) (plumbing.Hash, error) {
		return r.writeDeflatedBlocks(w, []string{objectHeader(t, size), body}, level)
	})
}

// budgetLevel is the level of the next object, of size bytes: the default
// until the Repo has written deflateFastAfter bytes, deflateFastLevel from
// then on.
func (r *Repo) budgetLevel(size int64) int {
	if r.deflated.Add(size) > deflateFastAfter {
		return deflateFastLevel
	}
	return zlib.DefaultCompression
}

// objectHeader is the header a loose object's content starts with.
func objectHeader(t plumbing.ObjectType, size int64) string {
	return fmt.Sprintf("%s %d\x00", t, size)
}

// writeLooseWith stores the loose object that deflate writes at level and
// hashes: to a temporary file in the objects directory, renamed to
// objects/xx/yyyy for the hash deflate returns.
func (r *Repo) writeLooseWith(size int64, level int, deflate func(w io.Writer, level int) (plumbing.Hash, error)) (plumbing.Hash, error) {
	objDir := r.objectsDir()
	// git's own temporary name: git prune removes stale ones. Not fsynced,
	// as git writes loose objects by default (core.fsync).
	tmp, err := atomicfile.Create(objDir, atomicfile.Options{
		Perm: 0o444, Sync: atomicfile.SyncNone, DirPerm: 0o755, TempPattern: "tmp_obj_*",
	})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer tmp.Abort()

	// The deflater hands its output on in pieces of a few hundred bytes:
	// unbuffered, a large object costs a write system call for each.
	buf := bufio.NewWriterSize(tmp, int(min(max(size/2, 512), 64<<10)))
	h, err := deflate(buf, level)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if err := buf.Flush(); err != nil {
		return plumbing.ZeroHash, err
	}
	dst := filepath.Join(objDir, h.String()[:2], h.String()[2:])
	if err := tmp.Commit(dst); err != nil {
		if _, statErr := os.Stat(dst); statErr != nil {
			return plumbing.ZeroHash, err
		}
		// Another writer stored the same object first: same bytes, fine.
	}
	return h, nil
}

func (r *Repo) objectsDir() string {
	return filepath.Join(r.CommonDir, "objects")
}

// hashStream computes the git object hash of size bytes read from src.
func hashStream(t plumbing.ObjectType, src io.Reader, size int64) (plumbing.Hash, error) {
	var hs hash.Hash = sha1.New()
	fmt.Fprintf(hs, "%s %d\x00", t, size)
	n, err := io.Copy(hs, src)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n != size {
		return plumbing.ZeroHash, errors.New("file changed size while it was read")
	}
	var h plumbing.Hash
	copy(h[:], hs.Sum(nil))
	return h, nil
}

// CommitTree returns the root tree of commit, or nil (and no error) for
// plumbing.ZeroHash: the tree of a branch that does not exist yet.
func (r *Repo) CommitTree(commit plumbing.Hash) (*object.Tree, error) {
	if commit.IsZero() {
		return nil, nil
	}
	c, err := r.Git.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", commit, err)
	}
	t, err := r.Git.TreeObject(c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", c.TreeHash, err)
	}
	return t, nil
}

// HashObject returns the git object name of data as an object of type t.
// It is plumbing.ComputeHash with the standard library's SHA-1, which runs
// on the CPU's SHA instructions: go-git's collision-detecting SHA-1 costs
// 14 ms per 6 MB of transcript a turn stores, for content this process
// made itself (detection guards against crafted colliding objects read
// from elsewhere, which git checks when it receives them).
func HashObject(t plumbing.ObjectType, data []byte) plumbing.Hash {
	h := sha1.New()
	h.Write(t.Bytes())
	h.Write([]byte{' '})
	h.Write(strconv.AppendInt(nil, int64(len(data)), 10))
	h.Write([]byte{0})
	h.Write(data)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

// ReadBlobs reads the blobs hs and calls fn with each one's content, in
// no particular order; a missing object, or one that is not a blob, is
// left out. fn returning false stops the reading. The packed blobs are
// asked of the repository's `git cat-file` in groups (ReadBlob costs a
// round trip to git each), while the loose ones are inflated here.
func (r *Repo) ReadBlobs(hs []plumbing.Hash, fn func(h plumbing.Hash, data []byte) bool) error {
	var loose, packed []plumbing.Hash
	for _, h := range hs {
		if _, err := os.Stat(looseObjectPath(r.objectsDir(), h)); err == nil {
			loose = append(loose, h)
		} else {
			packed = append(packed, h)
		}
	}
	type blob struct {
		h    plumbing.Hash
		data []byte
	}
	var fromGit []blob
	answered := map[plumbing.Hash]bool{} // by git: a blob, or not one
	var gitErr error
	stop := make(chan struct{})
	done := make(chan struct{})
	go func(packed []plumbing.Hash) {
		// git inflates the packed blobs in a process of its own
		// meanwhile.
		defer close(done)
		c := r.storage.batch()
		if c == nil {
			return
		}
		gitErr = c.contentsOf(packed, func(h plumbing.Hash, t plumbing.ObjectType, data []byte) bool {
			answered[h] = true
			if t == plumbing.BlobObject {
				fromGit = append(fromGit, blob{h, data})
			}
			select {
			case <-stop:
				return false
			default:
				return true
			}
		})
	}(packed)
	more := true
	for _, h := range loose {
		data, ok := r.readLooseBlob(h)
		if !ok {
			packed = append(packed, h) // gone since (repacked), or not a blob
			continue
		}
		if more = fn(h, data); !more {
			break
		}
	}
	if !more {
		close(stop)
	}
	<-done
	if !more {
		return nil
	}
	for _, b := range fromGit {
		if !fn(b.h, b.data) {
			return nil
		}
	}
	if gitErr != nil {
		r.storage.broken(gitErr)
	}
	for _, h := range packed {
		if answered[h] {
			continue
		}
		data, err := r.ReadBlob(h)
		if err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				continue
			}
			return err
		}
		if !fn(h, data) {
			return nil
		}
	}
	return nil
}
