// Package treecopy recreates a file tree elsewhere: directories made,
// regular files copied (or hard-linked), symbolic links copied as links.
package treecopy

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Mode says how regular files are recreated.
type Mode int

const (
	// Copy writes every file anew (one link each).
	Copy Mode = iota
	// Link hard-links every file to its source.
	Link
)

// Tree recreates src (a file or a directory) at dst, which must not
// exist: directories 0755, files with their source's permissions.
// Anything but directories, regular files and symbolic links is skipped.
func Tree(src, dst string, mode Mode) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			if mode == Link {
				return os.Link(path, to)
			}
			return copyFile(path, to)
		}
		return nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
