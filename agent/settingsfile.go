package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/jsonedit"
)

// SettingsFile is a JSON settings file (.claude/settings.json,
// .gemini/settings.json, .mcp.json) opened for a text-level edit.
//
// Formatting contract: what is added is inserted into the existing text in
// the file's own layout (indent unit, line ending, compact or expanded
// containers; see package jsonedit) and nothing else is re-serialised.
// Every insertion is noted in Added when it is set, so that an uninstall
// (Undo) takes out exactly those bytes: a file edited by nothing else
// comes back byte-identical, and what the user added since is kept.
type SettingsFile struct {
	// Path is the file path.
	Path string
	// Doc is the document (an empty object for a new file).
	Doc *jsonedit.Doc
	// Exists reports whether the file existed when read.
	Exists bool
	// Added, when not nil, receives every insertion made through Insert,
	// Append and EnsureObject.
	Added *jsonedit.Record

	original        []byte
	trailingNewline bool
	mode            fs.FileMode
}

// maxSettingsFile bounds what ReadSettingsFile reads: agent settings files
// are a few KiB, and a committed one is a teammate's input.
const maxSettingsFile = 16 << 20

// ReadSettingsFile reads path. A missing (or blank) file gives an empty
// object with Exists false (true for a blank one); newFileTrailingNewline
// selects the final newline used if the file is created. A file that is not
// a JSON object, not a regular file (a FIFO, a device such as /dev/zero a
// symlink may point to; opened as OpenTranscript does, without blocking) or
// larger than 16 MiB gives an error wrapping ErrInvalidSettings.
func ReadSettingsFile(path string, newFileTrailingNewline bool) (*SettingsFile, error) {
	f := &SettingsFile{Path: path, Doc: jsonedit.New(), trailingNewline: newFileTrailingNewline, mode: 0o600}
	file, err := openRegular(path, "settings", ErrInvalidSettings)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read settings %s: %w", path, err)
	}
	defer file.Close()
	data, tooLarge, err := ReadAtMost(file, maxSettingsFile)
	if err != nil {
		return nil, fmt.Errorf("read settings %s: %w", path, err)
	}
	if tooLarge {
		return nil, fmt.Errorf("read settings %s: %w: larger than %d MiB", path, ErrInvalidSettings, maxSettingsFile>>20)
	}
	f.Exists = true
	f.original = data
	if st, err := file.Stat(); err == nil {
		f.mode = st.Mode().Perm()
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	doc, err := jsonedit.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read settings %s: %w: %v", path, ErrInvalidSettings, err)
	}
	f.Doc = doc
	f.trailingNewline = false // the document keeps its own trailing bytes
	return f, nil
}

// Encode returns the bytes Save would write.
func (f *SettingsFile) Encode() []byte {
	out := f.Doc.Bytes()
	if f.trailingNewline {
		out = append(out, '\n')
	}
	return out
}

// Insert adds member key with value to the object at path and records it
// (with its value when scalar is true, else as a container taken out only
// once empty).
func (f *SettingsFile) Insert(path []string, key string, value []byte, scalar bool) error {
	if err := f.Doc.Insert(jsonedit.Keys(path), key, value); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	var v []byte
	if scalar {
		v = value
	}
	f.Added.Member(append(slices.Clone(path), key), v)
	return nil
}

// Append adds value at the end of the array at path and records it.
func (f *SettingsFile) Append(path []string, value []byte) error {
	if err := f.Doc.Append(jsonedit.Keys(path), value); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	f.Added.Element(path, value)
	return nil
}

// Ensure makes path hold a container of kind '{' or '[', inserting (and
// recording) an empty one where it is missing. A member that is null is
// replaced; one of another kind is an error wrapping ErrInvalidSettings.
func (f *SettingsFile) Ensure(kind byte, path ...string) error {
	for i := range path {
		p := jsonedit.Keys(path[:i+1])
		want := byte('{')
		if i == len(path)-1 {
			want = kind
		}
		empty := []byte("{}")
		if want == '[' {
			empty = []byte("[]")
		}
		switch k := f.Doc.Kind(p...); {
		case k == want:
		case k == 0:
			if err := f.Insert(path[:i], path[i], empty, false); err != nil {
				return err
			}
		case k == 'v' && isNull(f.Doc, p):
			if err := f.Doc.Replace(p, empty); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: %w: %s is not an %s", f.Path, ErrInvalidSettings, p, map[byte]string{'{': "object", '[': "array"}[want])
		}
	}
	return nil
}

func isNull(d *jsonedit.Doc, p jsonedit.Path) bool {
	v, _ := d.Get(p...)
	return string(v) == "null"
}

// Save writes the file atomically if its content changed, creating parent
// directories (0750); a new file gets mode 0600, an existing one keeps its
// mode. It reports whether it wrote.
func (f *SettingsFile) Save() (bool, error) {
	out := f.Encode()
	if f.Exists && bytes.Equal(out, f.original) {
		return false, nil
	}
	if err := atomicfile.Write(f.Path, out, f.mode); err != nil {
		return false, fmt.Errorf("write settings: %w", err)
	}
	f.original, f.Exists = out, true
	return true, nil
}

// SaveOrRemove saves the file rel (relative to the work tree root, as in
// log), or, when log says enable created it and the document is an empty
// object, removes it (and its parent directory when enable created that and
// it is left empty).
func (f *SettingsFile) SaveOrRemove(log *InstallLog, rel string) error {
	if !log.WasCreated(rel) || f.Doc.Len() > 0 {
		_, err := f.Save()
		return err
	}
	if !f.Exists {
		return nil
	}
	if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove settings %s: %w", f.Path, err)
	}
	if log.WasCreated(filepath.ToSlash(filepath.Dir(rel))) {
		_ = os.Remove(filepath.Dir(f.Path)) // only succeeds when empty
	}
	f.Exists = false
	return nil
}
