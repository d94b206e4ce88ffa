package undostore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/klauspost/compress/zstd"
)

// DirName is the directory, in a git directory, that holds the points.
const DirName = "entire-undo"

// Limits of what Read accepts, so that a damaged or planted point cannot
// make it read without bound.
const (
	// MaxManifest bounds the size of a point's point.json.
	MaxManifest = 64 << 20
	// MaxData bounds the size of a point's data once decompressed.
	MaxData = 4 << 30
)

// Errors of the store, returned wrapped with the point's name.
var (
	ErrNotFound = errors.New("undostore: no such undo point")
	ErrExists   = errors.New("undostore: undo point exists")
	ErrCorrupt  = errors.New("undostore: corrupt undo point")
	ErrBadName  = errors.New("undostore: invalid undo point name")
)

const (
	pointFile = "point.json"
	dataFile  = "data.zst"
	tmpPrefix = ".tmp-"
	// staleAfter is the age from which Prune removes temporary
	// directories: what a crash in Write left behind.
	staleAfter = time.Hour
	version    = 1
)

// ValidName reports whether name can name a point: 1 to 128 letters,
// digits, '.', '_' or '-', not starting with a punctuation mark (so never
// "..", never a path). (A regular expression for it, with its {0,127},
// took 2 ms to compile in every process that links the store.)
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Store is the undo points of one git directory. Methods are safe for
// concurrent use by several processes as far as the file system's rename
// is atomic: a point is either complete or absent.
type Store struct {
	dir string
}

// New returns the store of gitDir (a worktree's own git directory); it
// touches nothing until a point is written.
func New(gitDir string) *Store {
	return &Store{dir: filepath.Join(gitDir, DirName)}
}

// Dir is the directory holding the points.
func (s *Store) Dir() string { return s.dir }

// envelope is point.json: the caller's manifest and what the data file
// must decompress to.
type envelope struct {
	Version  int             `json:"version"`
	Size     int64           `json:"data_size"`
	SHA256   string          `json:"data_sha256"`
	Manifest json.RawMessage `json:"manifest"`
}

// Write stores a point named name: manifest (encoded as JSON) and data
// (compressed with zstd). The point appears complete or not at all: it is
// written into a temporary directory, every file fsynced, then renamed into
// place. Files are mode 0600 and directories 0700: data holds whatever the
// caller saved, secrets included. It returns ErrExists when a point of that
// name exists, ErrBadName for an invalid name.
func (s *Store) Write(name string, manifest any, data []byte) (err error) {
	if !ValidName(name) {
		return fmt.Errorf("%w: %q", ErrBadName, name)
	}
	m, err := json.Marshal(manifest)
	if err != nil {
		return fmt.Errorf("encode undo point %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	env, err := json.Marshal(envelope{Version: version, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Manifest: m})
	if err != nil {
		return fmt.Errorf("encode undo point %s: %w", name, err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.dir, err)
	}
	final := filepath.Join(s.dir, name)
	if _, err := os.Lstat(final); err == nil {
		return fmt.Errorf("%w: %s", ErrExists, name)
	}
	tmp, err := os.MkdirTemp(s.dir, tmpPrefix+name+"-")
	if err != nil {
		return fmt.Errorf("write undo point %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return fmt.Errorf("write undo point %s: %w", name, err)
	}
	compressed := enc.EncodeAll(data, nil)
	_ = enc.Close()
	if err := atomicfile.Write(filepath.Join(tmp, dataFile), compressed, 0o600); err != nil {
		return fmt.Errorf("write undo point %s: %w", name, err)
	}
	if err := atomicfile.Write(filepath.Join(tmp, pointFile), env, 0o600); err != nil {
		return fmt.Errorf("write undo point %s: %w", name, err)
	}
	if _, err := os.Lstat(final); err == nil {
		return fmt.Errorf("%w: %s", ErrExists, name)
	}
	// The point is published by renaming its directory, which never
	// replaces one of the same name (atomicfile replaces files).
	if err := os.Rename(tmp, final); err != nil {
		if errors.Is(err, fs.ErrExist) || isNotEmpty(err) {
			return fmt.Errorf("%w: %s", ErrExists, name)
		}
		return fmt.Errorf("write undo point %s: %w", name, err)
	}
	atomicfile.SyncDir(s.dir)
	return nil
}

// Read loads point name: it decodes its manifest into manifest (a pointer,
// as for json.Unmarshal) and returns its data. Reads are bounded
// (MaxManifest, MaxData, and the data size the point declares), nothing is
// followed through a symbolic link, and the data must match its checksum;
// a point that fails any check is ErrCorrupt, a missing one ErrNotFound.
func (s *Store) Read(name string, manifest any) ([]byte, error) {
	if !ValidName(name) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	dir := filepath.Join(s.dir, name)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
		}
		return nil, fmt.Errorf("read undo point %s: %w", name, err)
	}
	raw, err := readRegular(filepath.Join(dir, pointFile), MaxManifest)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, name, err)
	}
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, name, err)
	}
	if env.Version != version {
		return nil, fmt.Errorf("%w: %s has format version %d, this entire reads %d", ErrCorrupt, name, env.Version, version)
	}
	if env.Size < 0 || env.Size > MaxData {
		return nil, fmt.Errorf("%w: %s declares %d bytes of data", ErrCorrupt, name, env.Size)
	}
	data, err := readData(filepath.Join(dir, dataFile), env.Size)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, name, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != env.SHA256 {
		return nil, fmt.Errorf("%w: %s: data checksum mismatch", ErrCorrupt, name)
	}
	if err := json.Unmarshal(env.Manifest, manifest); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, name, err)
	}
	return data, nil
}

// readRegular reads a regular file (not through a symbolic link) of at
// most limit bytes.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", filepath.Base(path), limit)
	}
	return b, nil
}

// openRegular opens a regular file, never through a symbolic link: one
// that takes its place between the look (lstat, which also keeps a FIFO
// from blocking the open) and the open fails (gitrepo.OpenNoFollow), and
// the opened file must be the one looked at.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	f, err := gitrepo.OpenNoFollow(path)
	if err != nil {
		return nil, err
	}
	if got, err := f.Stat(); err != nil || !os.SameFile(fi, got) {
		_ = f.Close()
		return nil, fmt.Errorf("%s changed while it was opened", filepath.Base(path))
	}
	return f, nil
}

// readData decompresses the data file, which must hold exactly size bytes.
func readData(path string, size int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(size)+1<<20))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(dec, size+1))
	if err != nil {
		return nil, err
	}
	if n != size {
		return nil, fmt.Errorf("data holds %d bytes, the point declares %d", n, size)
	}
	return buf.Bytes(), nil
}

// Names returns the names of the points, sorted (oldest first when names
// are timestamps, as package rewind makes them). A store never written to
// has none.
func (s *Store) Names() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list undo points: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && ValidName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Remove deletes point name; a missing point is not an error. The point
// is first renamed away, so a reader never sees half of it.
func (s *Store) Remove(name string) error {
	if !ValidName(name) {
		return fmt.Errorf("%w: %q", ErrBadName, name)
	}
	dir := filepath.Join(s.dir, name)
	gone := filepath.Join(s.dir, tmpPrefix+"rm-"+name)
	_ = os.RemoveAll(gone)
	if err := os.Rename(dir, gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove undo point %s: %w", name, err)
	}
	if err := os.RemoveAll(gone); err != nil {
		return fmt.Errorf("remove undo point %s: %w", name, err)
	}
	return nil
}

// Prune removes all but the last keep points of Names, and temporary
// directories older than an hour (left by a crash). It returns the names
// it removed and the first error met; it goes on past errors.
func (s *Store) Prune(keep int) ([]string, error) {
	names, err := s.Names()
	if err != nil {
		return nil, err
	}
	var removed []string
	var first error
	for i := 0; i < len(names)-keep; i++ {
		if err := s.Remove(names[i]); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		removed = append(removed, names[i])
	}
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleAfter {
			_ = os.RemoveAll(filepath.Join(s.dir, e.Name()))
		}
	}
	return removed, first
}

// isNotEmpty reports ENOTEMPTY: a rename onto a directory that has files.
func isNotEmpty(err error) bool { return errors.Is(err, syscall.ENOTEMPTY) }
