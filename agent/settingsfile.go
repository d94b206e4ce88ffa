package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/atomicfile"
)

// SettingsFile is an agent settings file (.claude/settings.json,
// .gemini/settings.json) opened for a merge-style edit.
//
// Formatting contract: the file is re-written as indented JSON using the
// indent unit found in the existing file (two spaces for new or single-line
// files) and keeping whether it ended with a newline. Member order, numbers and
// string escapes are kept as written. Hence a file already in that layout
// (JSON.stringify(v, null, 2) style, the common case) comes back
// byte-identical after an install/uninstall round trip; a compact single-line
// file or one with unusual spacing is re-indented on its first edit.
type SettingsFile struct {
	// Path is the file path.
	Path string
	// Root is the parsed top-level object (empty for a new file).
	Root *Object
	// Exists reports whether the file existed when read.
	Exists bool

	original        []byte
	indent          string
	trailingNewline bool
	mode            fs.FileMode
}

// ReadSettingsFile reads path. A missing file gives an empty Root with
// Exists false; newFileTrailingNewline selects the final newline used if the
// file is created. A file that is not a JSON object gives an error wrapping
// ErrInvalidSettings.
func ReadSettingsFile(path string, newFileTrailingNewline bool) (*SettingsFile, error) {
	f := &SettingsFile{Path: path, Root: &Object{}, indent: "  ", trailingNewline: newFileTrailingNewline, mode: 0o600}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read settings %s: %w", path, err)
	}
	f.Exists = true
	f.original = data
	if st, err := os.Stat(path); err == nil {
		f.mode = st.Mode().Perm()
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	root, err := ParseObject(data)
	if err != nil {
		return nil, fmt.Errorf("read settings %s: %w: %v", path, ErrInvalidSettings, err)
	}
	f.Root = root
	f.indent = detectIndent(data)
	f.trailingNewline = bytes.HasSuffix(data, []byte("\n"))
	return f, nil
}

// Encode returns the bytes Save would write.
func (f *SettingsFile) Encode() []byte {
	out := f.Root.Indent(f.indent)
	if f.trailingNewline {
		out = append(out, '\n')
	}
	return out
}

// Save writes the file atomically if its content changed, creating parent
// directories (0750); a new file gets mode 0600, an existing one keeps its
// mode. It reports whether it wrote.
func (f *SettingsFile) Save() (bool, error) {
	out := f.Encode()
	if f.Exists && bytes.Equal(out, f.original) {
		return false, nil
	}
	if err := WriteFileAtomic(f.Path, out, f.mode); err != nil {
		return false, fmt.Errorf("write settings: %w", err)
	}
	f.original, f.Exists = out, true
	return true, nil
}

// SaveOrRemove saves the file, or removes it (and its parent directory, if
// that is left empty) when Root has no members left.
func (f *SettingsFile) SaveOrRemove() error {
	if f.Root.Len() > 0 {
		_, err := f.Save()
		return err
	}
	if !f.Exists {
		return nil
	}
	if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove settings %s: %w", f.Path, err)
	}
	_ = os.Remove(filepath.Dir(f.Path)) // only succeeds when empty
	f.Exists = false
	return nil
}

// detectIndent returns the leading whitespace of the first indented line, or
// two spaces.
func detectIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n > 0 && n < len(line) {
			return string(line[:n])
		}
	}
	return "  "
}

// WriteFileAtomic writes data to path atomically (see atomicfile.Write):
// temp file, fsync, rename; parents created 0750. On error path is
// unchanged.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return atomicfile.Write(path, data, perm)
}
