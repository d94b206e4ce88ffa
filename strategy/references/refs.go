package references

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/renderrefs"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Entity types entire's own commands emit.
const (
	TypeCheckpoint = "checkpoint"
	TypeNote       = "note"
	TypeHide       = "hide"
	TypeUndoPoint  = "undo_point"
)

// FileName is the name of the references file in a session slot.
const FileName = "references.json"

// Merge returns the references of lists in order, keeping the first of
// each type and ID pair. It returns nil when there are none.
func Merge(lists ...[]renderrefs.Reference) []renderrefs.Reference {
	var out []renderrefs.Reference
	seen := map[[2]string]bool{}
	for _, l := range lists {
		for _, r := range l {
			k := [2]string{r.Type, r.ID}
			if r.Type == "" || r.ID == "" || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// Encode returns the references.json bytes of refs: indented JSON and a
// final newline; nil refs give "[]".
func Encode(refs []renderrefs.Reference) ([]byte, error) {
	if refs == nil {
		refs = []renderrefs.Reference{}
	}
	b, err := json.MarshalIndent(refs, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode references: %w", err)
	}
	return append(b, '\n'), nil
}

// Decode reads a references.json. References without type or ID are
// dropped.
func Decode(b []byte) ([]renderrefs.Reference, error) {
	var refs []renderrefs.Reference
	if err := json.Unmarshal(b, &refs); err != nil {
		return nil, fmt.Errorf("corrupt %s: %w", FileName, err)
	}
	return Merge(refs), nil
}

// ReadSlot returns the references of a committed checkpoint's session
// slot; nil when it has none.
func ReadSlot(sess *checkpoint.Session) ([]renderrefs.Reference, error) {
	b, err := sess.File(FileName)
	if errors.Is(err, object.ErrFileNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// Redact passes the preview title of each reference through redact (a
// title is free text from the entity; IDs and types are not). nil redact
// does nothing.
func Redact(refs []renderrefs.Reference, redact func(string) string) {
	if redact == nil {
		return
	}
	for i := range refs {
		if p := refs[i].Preview; p != nil && p.Title != "" {
			c := *p
			c.Title = redact(c.Title)
			refs[i].Preview = &c
		}
	}
}

// PendingPath is the file holding a session's references that no
// checkpoint holds yet, below the repository's transient directory.
func PendingPath(repoRoot, sessionID string) string {
	return filepath.Join(repoRoot, filepath.FromSlash(session.TmpDir), "references-"+sessionID+".json")
}

// ReadPending returns a session's pending references; nil when there are
// none.
func ReadPending(repoRoot, sessionID string) ([]renderrefs.Reference, error) {
	if err := session.ValidateID(sessionID); err != nil {
		return nil, fmt.Errorf("read pending references: %w", err)
	}
	b, err := os.ReadFile(PendingPath(repoRoot, sessionID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pending references: %w", err)
	}
	return Decode(b)
}

// AddPending merges refs into the session's pending references (first
// kept) and writes them back atomically. Callers serialise the writers of
// one session (the strategy holds the session's lock). No refs: no I/O.
func AddPending(repoRoot, sessionID string, refs []renderrefs.Reference) error {
	if len(refs) == 0 {
		return nil
	}
	old, err := ReadPending(repoRoot, sessionID)
	if err != nil {
		old = nil // a corrupt file is replaced
		if session.ValidateID(sessionID) != nil {
			return err
		}
	}
	b, err := Encode(Merge(old, refs))
	if err != nil {
		return err
	}
	if err := atomicfile.Write(PendingPath(repoRoot, sessionID), b, 0o600); err != nil {
		return fmt.Errorf("store pending references: %w", err)
	}
	return nil
}

// RemovePending deletes the session's pending references; a missing file
// is not an error.
func RemovePending(repoRoot, sessionID string) error {
	if err := session.ValidateID(sessionID); err != nil {
		return fmt.Errorf("remove pending references: %w", err)
	}
	if err := os.Remove(PendingPath(repoRoot, sessionID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove pending references: %w", err)
	}
	return nil
}
