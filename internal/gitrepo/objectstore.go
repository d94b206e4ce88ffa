package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/klauspost/compress/zlib"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objectStore is the object storage go-git reads through: loose objects
// are read from their files, packed ones are asked of one `git cat-file
// --batch-command` started at the first such read. go-git's own pack
// reading costs, at the first packed object, a decode of the whole pack
// index and a reverse map of every object's offset (on 100k objects, 45 ms
// of a hook that reads a handful of trees), where git mmaps the index and
// finds each object at once. Should git not run, or not speak the
// protocol (before 2.36), the reads fall back to go-git's.
//
// Every other storage method is go-git's, its pack index loaded first
// under a lock (go-git loads it lazily without one).
type objectStore struct {
	*filesystem.Storage
	objects string // the objects directory
	runner  Runner
	cache   cache.Object

	indexOnce sync.Once

	mu     sync.Mutex
	cat    *catFile
	catErr error // why packed objects are read by go-git instead
}

var (
	_ storer.EncodedObjectStorer = (*objectStore)(nil)
	_ storer.PackfileWriter      = (*objectStore)(nil)
)

// loadIndex has go-git load its pack indexes, once, before any method of
// its own that needs them.
func (s *objectStore) loadIndex() {
	s.indexOnce.Do(func() { _ = s.Storage.ObjectStorage.HasEncodedObject(plumbing.ZeroHash) })
}

// EncodedObject returns object h of type t (plumbing.AnyObject: any).
func (s *objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, ok := s.cache.Get(h)
	if !ok {
		var err error
		if obj, err = s.read(h); err != nil {
			return nil, err
		}
		if obj.Type() != plumbing.BlobObject {
			// Trees and commits are read again and again (paths looked
			// up from the root); a blob is read once, and may be large.
			s.cache.Put(obj)
		}
	}
	if t != plumbing.AnyObject && obj.Type() != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return obj, nil
}

// read reads object h: loose, else packed.
func (s *objectStore) read(h plumbing.Hash) (plumbing.EncodedObject, error) {
	t, data, err := readLooseObject(s.objects, h)
	if err == nil {
		return memoryObject(h, t, data), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if c := s.batch(); c != nil {
		t, data, err := c.contents(h)
		if err == nil || errors.Is(err, plumbing.ErrObjectNotFound) {
			if err != nil {
				return nil, err
			}
			return memoryObject(h, t, data), nil
		}
		s.broken(err)
	}
	s.loadIndex()
	return s.Storage.EncodedObject(plumbing.AnyObject, h)
}

// HasEncodedObject returns nil when object h exists, else
// plumbing.ErrObjectNotFound.
func (s *objectStore) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.cache.Get(h); ok {
		return nil
	}
	if _, err := os.Stat(looseObjectPath(s.objects, h)); err == nil {
		return nil
	}
	if virtualObjects[h] {
		// git answers for these stored or not: a tree or commit naming
		// one must find it stored (git fsck), so it counts as missing
		// unless loose (a packed copy is then stored once more).
		return plumbing.ErrObjectNotFound
	}
	if c := s.batch(); c != nil {
		_, _, err := c.info(h)
		if err == nil || errors.Is(err, plumbing.ErrObjectNotFound) {
			return err
		}
		s.broken(err)
	}
	s.loadIndex()
	return s.Storage.HasEncodedObject(h)
}

// EncodedObjectSize returns the size of object h.
func (s *objectStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if obj, ok := s.cache.Get(h); ok {
		return obj.Size(), nil
	}
	if _, size, err := looseObjectSize(s.objects, h); err == nil {
		return size, nil
	} else if errors.Is(err, fs.ErrNotExist) {
		if c := s.batch(); c != nil {
			_, size, err := c.info(h)
			if err == nil || errors.Is(err, plumbing.ErrObjectNotFound) {
				return size, err
			}
			s.broken(err)
		}
	}
	s.loadIndex()
	return s.Storage.EncodedObjectSize(h)
}

// virtualObjects are the objects git knows without storing them: the
// empty tree and the empty blob.
var virtualObjects = map[plumbing.Hash]bool{
	EmptyTree: true,
	plumbing.NewHash("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"): true,
}

// The methods of go-git's storage that read its pack indexes.

// DeltaObject is go-git's, with its pack indexes loaded.
func (s *objectStore) DeltaObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	s.loadIndex()
	return s.Storage.DeltaObject(t, h)
}

// IterEncodedObjects is go-git's, with its pack indexes loaded.
func (s *objectStore) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	s.loadIndex()
	return s.Storage.IterEncodedObjects(t)
}

// HashesWithPrefix is go-git's, with its pack indexes loaded.
func (s *objectStore) HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error) {
	s.loadIndex()
	return s.Storage.HashesWithPrefix(prefix)
}

// PackfileWriter is go-git's, with its pack indexes loaded.
func (s *objectStore) PackfileWriter() (io.WriteCloser, error) {
	s.loadIndex()
	return s.Storage.PackfileWriter()
}

// batch returns the cat-file process, started at the first call; nil
// when packed objects are read by go-git.
func (s *objectStore) batch() *catFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cat == nil && s.catErr == nil {
		s.cat, s.catErr = startCatFile(s.runner)
	}
	return s.cat
}

// broken gives up the cat-file process after it failed: go-git reads the
// packed objects from now on.
func (s *objectStore) broken(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cat != nil {
		s.cat.close()
		s.cat = nil
	}
	s.catErr = err
}

// memoryObject returns object h of type t read whole: its hash is the
// name it was read by (loose files and git vouch for it), not computed
// again.
func memoryObject(h plumbing.Hash, t plumbing.ObjectType, data []byte) plumbing.EncodedObject {
	return &readObject{h: h, t: t, data: data}
}

// readObject is an object read from the repository, read-only.
type readObject struct {
	h    plumbing.Hash
	t    plumbing.ObjectType
	data []byte
}

func (o *readObject) Hash() plumbing.Hash             { return o.h }
func (o *readObject) Type() plumbing.ObjectType       { return o.t }
func (o *readObject) SetType(plumbing.ObjectType)     {}
func (o *readObject) Size() int64                     { return int64(len(o.data)) }
func (o *readObject) SetSize(int64)                   {}
func (o *readObject) Writer() (io.WriteCloser, error) { return nil, errReadOnlyObject }
func (o *readObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}

var errReadOnlyObject = errors.New("an object read from the repository cannot be written")

// looseObjectPath is where object h is stored loose.
func looseObjectPath(objects string, h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(objects, hex[:2], hex[2:])
}

// maxLooseObject bounds the loose objects read whole: git itself stores
// none larger than a transcript chunk's bound.
const maxLooseObject = 1 << 30

// readLooseObject reads object h from its loose file: its type and
// content. An error wrapping os.ErrNotExist means there is no such file.
func readLooseObject(objects string, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	t, _, data, err := readLoose(objects, h, true)
	return t, data, err
}

// looseObjectSize returns the type and size of loose object h from its
// header, without reading its body.
func looseObjectSize(objects string, h plumbing.Hash) (plumbing.ObjectType, int64, error) {
	t, size, _, err := readLoose(objects, h, false)
	return t, size, err
}

// readLoose reads loose object h: its type, its size and, with body, its
// content.
func readLoose(objects string, h plumbing.Hash, body bool) (plumbing.ObjectType, int64, []byte, error) {
	f, err := os.Open(looseObjectPath(objects, h))
	if err != nil {
		return plumbing.InvalidObject, 0, nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return plumbing.InvalidObject, 0, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	defer zr.Close()
	br := bufio.NewReader(zr)
	header, err := br.ReadString(0)
	if err != nil {
		return plumbing.InvalidObject, 0, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	typ, sz, ok := strings.Cut(strings.TrimSuffix(header, "\x00"), " ")
	t, terr := plumbing.ParseObjectType(typ)
	size, serr := strconv.ParseInt(sz, 10, 64)
	if !ok || terr != nil || serr != nil || size < 0 || size > maxLooseObject {
		return plumbing.InvalidObject, 0, nil, fmt.Errorf("read object %s: bad header %q", h, header)
	}
	if !body {
		return t, size, nil, nil
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(br, data); err != nil {
		return plumbing.InvalidObject, 0, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	return t, size, data, nil
}

// catFile is one `git cat-file --batch-command`, asked one object at a
// time. Not safe for concurrent use: objectStore holds its lock while it
// asks.
type catFile struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *batchReader
}

// startCatFile starts the process; it runs until close or until this
// process ends (its standard input then closes).
func startCatFile(g Runner) (*catFile, error) {
	cmd := exec.Command("git", "cat-file", "--batch-command")
	cmd.Dir = g.Dir
	cmd.Env = g.environ()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, in: in, out: newBatchReader(out)}, nil
}

// ask sends one command about h and reads the answer's header; missing is
// reported as plumbing.ErrObjectNotFound.
func (c *catFile) ask(verb string, h plumbing.Hash) (*BatchObject, error) {
	if _, err := io.WriteString(c.in, verb+" "+h.String()+"\n"); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	obj, err := c.out.next(h.String())
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	if obj.Missing() {
		return nil, plumbing.ErrObjectNotFound
	}
	if obj.Hash != h.String() {
		return nil, fmt.Errorf("git cat-file: asked for %s, got %s", h, obj.Hash)
	}
	return obj, nil
}

// contents returns the type and content of object h.
func (c *catFile) contents(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, err := c.ask("contents", h)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	t, err := plumbing.ParseObjectType(obj.Type)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("git cat-file: %w", err)
	}
	data := make([]byte, obj.Size)
	if _, err := io.ReadFull(obj.Body, data); err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("git cat-file: %w", err)
	}
	if err := c.out.finish(obj); err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("git cat-file: %w", err)
	}
	return t, data, nil
}

// info returns the type and size of object h.
func (c *catFile) info(h plumbing.Hash) (plumbing.ObjectType, int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, err := c.ask("info", h)
	if err != nil {
		return plumbing.InvalidObject, 0, err
	}
	t, err := plumbing.ParseObjectType(obj.Type)
	if err != nil {
		return plumbing.InvalidObject, 0, fmt.Errorf("git cat-file: %w", err)
	}
	return t, obj.Size, nil
}

// close ends the process.
func (c *catFile) close() {
	c.in.Close()
	_ = c.cmd.Wait()
}

// catFileGroup is how many commands contentsOf writes before it reads
// their answers: their lines stay far below a pipe's buffer, so that git
// never waits to write while this process waits to write too.
const catFileGroup = 256

// contentsOf asks for the objects hs in groups, all the commands of a
// group written at once (one round trip to git a group, not an object),
// and calls fn with each object's type and content in order (type
// plumbing.InvalidObject and nil for a missing one). fn returning false
// stops the reading: the rest of its group is skipped.
func (c *catFile) contentsOf(hs []plumbing.Hash, fn func(h plumbing.Hash, t plumbing.ObjectType, data []byte) bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(hs) > 0 {
		group := hs[:min(len(hs), catFileGroup)]
		hs = hs[len(group):]
		var cmds strings.Builder
		for _, h := range group {
			cmds.WriteString("contents " + h.String() + "\n")
		}
		if _, err := io.WriteString(c.in, cmds.String()); err != nil {
			return fmt.Errorf("git cat-file: %w", err)
		}
		more := true
		for _, h := range group {
			obj, err := c.out.next(h.String())
			if err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			if obj.Missing() {
				more = more && fn(h, plumbing.InvalidObject, nil)
				continue
			}
			if obj.Hash != h.String() {
				return fmt.Errorf("git cat-file: asked for %s, got %s", h, obj.Hash)
			}
			t, err := plumbing.ParseObjectType(obj.Type)
			if err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			var data []byte
			if more {
				data = make([]byte, obj.Size)
				if _, err := io.ReadFull(obj.Body, data); err != nil {
					return fmt.Errorf("git cat-file: %w", err)
				}
			}
			if err := c.out.finish(obj); err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			if more {
				more = fn(h, t, data)
			}
		}
		if !more {
			return nil
		}
	}
	return nil
}
