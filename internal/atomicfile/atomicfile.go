// Package atomicfile writes files so that a reader sees the old content or
// the new, never a mix, and a crash leaves no partial file: a temporary
// file, by default in the same directory, fsynced, then renamed over the
// target. It is the one way entire replaces a file: settings, session
// state, restored work-tree files, git hooks, refs and loose objects.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Sync says what a write makes durable before it returns.
type Sync int

const (
	// SyncAll fsyncs the file before the rename and its directory after
	// it, so that the new content survives a crash once Write returns.
	SyncAll Sync = iota
	// SyncFile fsyncs only the file: a crash may lose the rename (the old
	// content stays) but never leaves a partial file. For files written
	// often or many in a row (session state, a rewind's restored files).
	SyncFile
	// SyncNone fsyncs nothing, for content that can be rebuilt (an index)
	// or that git itself writes the same way (refs, loose objects).
	SyncNone
)

// Options tune a write. The zero value is the safest: mode 0600, missing
// parent directories created with mode 0750, file and directory fsynced,
// and a random temporary name beside the target.
type Options struct {
	// Perm is the file's permission bits, set with chmod (the umask does
	// not apply); zero means 0600.
	Perm fs.FileMode
	// KeepMode gives a file that already exists at the target its own
	// permission bits again; Perm applies to a new one.
	KeepMode bool
	// Sync says what is fsynced (SyncAll by default).
	Sync Sync
	// DirPerm is the mode of the missing directories a write creates (the
	// temporary file's and the target's); zero means 0750.
	DirPerm fs.FileMode
	// NoMkdir makes a missing directory an error instead.
	NoMkdir bool
	// TempDir is where WriteWith makes the temporary file; empty means the
	// target's directory. It must be on the target's file system.
	TempDir string
	// TempPattern names the temporary file as os.CreateTemp does (the
	// last "*" is replaced by a random string); empty means
	// ".<target name>.tmp-*", or ".tmp-*" for Create.
	TempPattern string
	// TempName is the exact name of the temporary file instead of a
	// random one: a leftover of that name (from a crash) is removed first.
	// The file is always created exclusively, so it is never written
	// through a symbolic link planted at its name.
	TempName string
}

func (o Options) perm() fs.FileMode {
	if o.Perm == 0 {
		return 0o600
	}
	return o.Perm
}

func (o Options) mkdir(dir string) error {
	if o.NoMkdir {
		return nil
	}
	perm := o.DirPerm
	if perm == 0 {
		perm = 0o750
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	return nil
}

// File is a temporary file that replaces its target when committed. Write
// to it through the embedded *os.File, then call Commit, or Abort to give
// up; Abort after Commit does nothing, so `defer f.Abort()` is the usual
// pattern.
type File struct {
	*os.File
	opts Options
	done bool
}

// Create makes a temporary file in dir (created when missing, unless
// opts.NoMkdir), named by opts.TempName or opts.TempPattern (".tmp-*" by
// default). The target is named only by Commit, so that content-addressed
// files can be named after what was written.
func Create(dir string, opts Options) (*File, error) {
	if opts.TempPattern == "" {
		opts.TempPattern = ".tmp-*"
	}
	return create(dir, opts)
}

func create(dir string, opts Options) (*File, error) {
	if err := opts.mkdir(dir); err != nil {
		return nil, err
	}
	var f *os.File
	var err error
	if opts.TempName != "" {
		name := filepath.Join(dir, opts.TempName)
		_ = os.Remove(name)
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	} else {
		f, err = os.CreateTemp(dir, opts.TempPattern)
	}
	if err != nil {
		return nil, fmt.Errorf("create temp file in %s: %w", dir, err)
	}
	return &File{File: f, opts: opts}, nil
}

// Commit makes the temporary file path: it sets the file's mode, fsyncs
// it (as opts.Sync says), closes it, creates path's directory when missing
// (unless opts.NoMkdir) and renames the file over path. On error the
// temporary file is removed and path is unchanged.
func (f *File) Commit(path string) error {
	_, err := f.commit(path)
	return err
}

// commit is Commit returning the FileInfo of the written file, taken
// before the rename so that it describes exactly these bytes.
func (f *File) commit(path string) (info fs.FileInfo, err error) {
	if f.done {
		return nil, errors.New("atomicfile: commit of a finished file")
	}
	defer func() {
		if err != nil {
			f.Abort()
		}
	}()
	perm := f.opts.perm()
	if f.opts.KeepMode {
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	if err = f.Chmod(perm); err != nil {
		return nil, fmt.Errorf("chmod %s: %w", f.Name(), err)
	}
	if f.opts.Sync != SyncNone {
		if err = f.Sync(); err != nil {
			return nil, fmt.Errorf("sync %s: %w", f.Name(), err)
		}
	}
	if info, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("stat %s: %w", f.Name(), err)
	}
	if err = f.Close(); err != nil {
		return nil, fmt.Errorf("close %s: %w", f.Name(), err)
	}
	dir := filepath.Dir(path)
	if dir != filepath.Dir(f.Name()) {
		if err = f.opts.mkdir(dir); err != nil {
			return nil, err
		}
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return nil, fmt.Errorf("rename to %s: %w", path, err)
	}
	f.done = true
	if f.opts.Sync == SyncAll {
		SyncDir(dir)
	}
	return info, nil
}

// Abort closes and removes the temporary file, unless it was committed.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	_ = f.Close()
	_ = os.Remove(f.Name())
}

// Write writes data to path through a temporary file in the same directory
// that is fsynced, given mode perm and renamed over path; the directory is
// then fsynced too. Missing parent directories are created with mode 0750.
// On error the temporary file is removed and path is unchanged.
func Write(path string, data []byte, perm fs.FileMode) error {
	_, err := WriteWith(path, data, Options{Perm: perm})
	return err
}

// Rewrite is Write for a file that may already exist: an existing file
// keeps its permission bits, a new one gets perm.
func Rewrite(path string, data []byte, perm fs.FileMode) error {
	_, err := WriteWith(path, data, Options{Perm: perm, KeepMode: true})
	return err
}

// WriteWith writes data to path as opts say (see Options) and returns the
// FileInfo of the written file, taken before the rename so that it
// describes exactly these bytes (its inode, size and modification time).
// On error the temporary file is removed and path is unchanged.
func WriteWith(path string, data []byte, opts Options) (fs.FileInfo, error) {
	f, err := createFor(path, opts)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return nil, fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return f.commit(path)
}

// createFor makes the temporary file of a write to path.
func createFor(path string, opts Options) (*File, error) {
	dir := opts.TempDir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	if opts.TempPattern == "" {
		opts.TempPattern = "." + filepath.Base(path) + ".tmp-*"
	}
	return create(dir, opts)
}

// Symlink makes path a symbolic link to target, replacing what is there
// in one rename: the link is made under a temporary name first (opts'
// naming and directory options apply; its mode and Sync do not).
func Symlink(target, path string, opts Options) error {
	dir := opts.TempDir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	if err := opts.mkdir(dir); err != nil {
		return err
	}
	var tmp string
	if opts.TempName != "" {
		tmp = filepath.Join(dir, opts.TempName)
		_ = os.Remove(tmp)
		if err := os.Symlink(target, tmp); err != nil {
			return fmt.Errorf("create link %s: %w", tmp, err)
		}
	} else {
		// os.CreateTemp's name picking, for a link: reserve a name with a
		// file, then put the link in its place under a derived name.
		f, err := createFor(path, opts)
		if err != nil {
			return err
		}
		f.Abort()
		tmp = f.Name()
		if err := os.Symlink(target, tmp); err != nil {
			return fmt.Errorf("create link %s: %w", tmp, err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("rename to %s: %w", path, err)
	}
	return nil
}

// SyncDir fsyncs directory dir, so that a rename or a new entry in it
// survives a crash (best effort: errors are ignored, as some file systems
// cannot sync a directory).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
