package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Checkpoint is a committed checkpoint as read from the metadata branch.
type Checkpoint struct {
	ID ID
	// Root is the checkpoint summary (root metadata.json).
	Root RootMetadata
	// Sessions are the session slots in index order.
	Sessions []*Session
}

// Session is one session slot of a committed checkpoint.
type Session struct {
	Index    int
	Metadata SessionMetadata
	repo     *gitrepo.Repo
	tree     *object.Tree
}

// slotInfo is what a write needs to know about an existing slot.
type slotInfo struct {
	meta  *SessionMetadata
	paths SessionPaths
}

// tip returns the commit of the metadata branch to read: the local branch,
// else origin's copy; ZeroHash when neither exists.
func (s *Store) tip() (plumbing.Hash, error) {
	h, err := s.repo.ReadRef(MetadataRef)
	if err != nil || !h.IsZero() {
		return h, err
	}
	return s.repo.ReadRef(s.RemoteRef())
}

// Pinned returns a store whose reads all see the metadata branch as it is
// now: its root tree is read once, not once a read. It is for a series of
// reads by one goroutine (a listing of many checkpoints); its reads do not
// see later writes (its writes go to the branch as any store's do), and it
// is not safe for concurrent use (a tree's lookups cache what they find).
func (s *Store) Pinned() (*Store, error) {
	root, err := s.rootTree()
	if err != nil {
		return nil, err
	}
	c := *s
	c.isPinned, c.pinned = true, root
	return &c, nil
}

// refTip returns the commit of checkpoint id's ref, zero when it has none.
// (Checkpoint refs are read one at a time, never listed, for a lookup:
// listing 20,000 refs costs more than the hundred lookups of a listing.)
func (s *Store) refTip(id ID) (plumbing.Hash, error) {
	return s.repo.ReadRef(id.RefName())
}

// rootTree returns the tree of the metadata branch tip, or nil when there is
// no metadata branch.
func (s *Store) rootTree() (*object.Tree, error) {
	if s.isPinned {
		return s.pinned, nil
	}
	tip, err := s.tip()
	if err != nil {
		return nil, err
	}
	t, err := s.repo.CommitTree(tip)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", MetadataBranch, err)
	}
	return t, nil
}

// Read returns checkpoint id with its session metadata; transcripts and
// other files are read on demand. It returns ErrNotFound when the
// checkpoint does not exist, and a clear error naming the file when a
// metadata.json is corrupt.
func (s *Store) Read(id ID) (*Checkpoint, error) {
	if !id.Valid() {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	dir, err := s.checkpointTree(id)
	if err != nil {
		return nil, err
	}
	cp := &Checkpoint{ID: id}
	if err := ReadJSON(s.repo, dir, MetadataFile, &cp.Root); err != nil && !errors.Is(err, object.ErrFileNotFound) {
		return nil, fmt.Errorf("checkpoint %s: %w", id, err)
	}
	for _, idx := range slotIndexes(dir) {
		sub, err := dir.Tree(strconv.Itoa(idx))
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s slot %d: %w", id, idx, err)
		}
		sess := &Session{Index: idx, repo: s.repo, tree: sub}
		if err := ReadJSON(s.repo, sub, MetadataFile, &sess.Metadata); err != nil {
			return nil, fmt.Errorf("checkpoint %s session %d: %w", id, idx, err)
		}
		cp.Sessions = append(cp.Sessions, sess)
	}
	if len(cp.Sessions) == 0 {
		return nil, fmt.Errorf("checkpoint %s: no sessions in it", id)
	}
	return cp, nil
}

// checkpointTree returns the tree of checkpoint id: the tree of its ref
// in the git-refs layout (SPEC 10.3), the checkpoint at its root, else its
// directory on the metadata branch. It returns ErrNotFound when neither
// holds it.
func (s *Store) checkpointTree(id ID) (*object.Tree, error) {
	if h, err := s.refTip(id); err == nil && !h.IsZero() {
		t, err := s.repo.CommitTree(h)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: read %s: %w", id, id.RefName(), err)
		}
		return t, nil
	}
	root, err := s.rootTree()
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, fmt.Errorf("%w: %s (no %s branch, no %s)", ErrNotFound, id, MetadataBranch, id.RefName())
	}
	dir, err := root.Tree(id.Shard())
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return dir, nil
}

// Exists reports whether checkpoint id is stored here: its ref, or its
// directory on the metadata branch.
func (s *Store) Exists(id ID) bool {
	if !id.Valid() {
		return false
	}
	if h, err := s.refTip(id); err == nil && !h.IsZero() {
		return true
	}
	root, err := s.rootTree()
	if err != nil || root == nil {
		return false
	}
	_, err = root.FindEntry(id.Shard())
	return err == nil
}

// RefIDs returns the IDs of the checkpoints stored as refs (SPEC 10.3),
// sorted (ULIDs by time). It reads ref names only.
func (s *Store) RefIDs() ([]ID, error) {
	refs, err := s.repo.ListRefs(RefPrefix)
	if err != nil {
		return nil, err
	}
	ids := make([]ID, 0, len(refs))
	for name := range refs {
		if id, ok := IDOfRef(name); ok {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// List returns the IDs of every committed checkpoint, of both layouts,
// sorted.
func (s *Store) List() ([]ID, error) {
	ids, err := s.RefIDs()
	if err != nil {
		return nil, err
	}
	root, err := s.rootTree()
	if err != nil || root == nil {
		return ids, err
	}
	for _, shard := range root.Entries {
		if shard.Mode != filemode.Dir || len(shard.Name) != 2 {
			continue
		}
		sub, err := s.repo.Git.TreeObject(shard.Hash)
		if err != nil {
			return nil, fmt.Errorf("read shard %s: %w", shard.Name, err)
		}
		for _, e := range sub.Entries {
			if id := ID(shard.Name + e.Name); e.Mode == filemode.Dir && id.Valid() {
				ids = append(ids, id)
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return slices.Compact(ids), nil
}

// readSessions returns what a write needs to know about the slots of
// checkpoint id, whose tree is dir (nil: it does not exist yet) at prefix
// ("" for a checkpoint ref, "<shard>/" on the metadata branch).
func (s *Store) readSessions(dir *object.Tree, id ID, prefix string) ([]slotInfo, error) {
	if dir == nil {
		return nil, nil
	}
	var out []slotInfo
	for _, idx := range slotIndexes(dir) {
		for len(out) < idx {
			out = append(out, slotInfo{})
		}
		sub, err := dir.Tree(strconv.Itoa(idx))
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s session %d: read tree: %w", id, idx, err)
		}
		var m SessionMetadata
		if err := ReadJSON(s.repo, sub, MetadataFile, &m); err != nil {
			return nil, fmt.Errorf("checkpoint %s session %d: %w", id, idx, err)
		}
		out = append(out, slotInfo{meta: &m, paths: SlotPathsIn(prefix, idx, sub)})
	}
	return out, nil
}

// slotIndexes lists the numeric session directories of a checkpoint.
func slotIndexes(dir *object.Tree) []int {
	var idx []int
	for _, e := range dir.Entries {
		if n, err := strconv.Atoi(e.Name); err == nil && n >= 0 && e.Mode == filemode.Dir {
			idx = append(idx, n)
		}
	}
	sort.Ints(idx)
	return idx
}

// maxMetadataFile bounds the size of a metadata file ReadJSON reads. The
// metadata branch comes from teammates' clones too: far above any real
// file (a files_touched list of a change to every file of a large
// repository), the bound keeps a crafted blob from taking a hook's memory.
const maxMetadataFile = 64 << 20

// ReadJSON decodes the file name (a slash path) of tree t, a checkpoint
// directory or a session slot of the metadata branch, into v. It returns an
// error wrapping object.ErrFileNotFound when there is no such file, and one
// wrapping ErrCorrupt when the file cannot be decoded or holds more than
// 64 MiB, which is not read.
func ReadJSON(repo *gitrepo.Repo, t *object.Tree, name string, v any) error {
	return readJSONAtMost(repo, t, name, v, maxMetadataFile)
}

// readJSONAtMost is ReadJSON with a bound of limit bytes.
func readJSONAtMost(repo *gitrepo.Repo, t *object.Tree, name string, v any, limit int64) error {
	data, err := readFileAtMost(repo, t, name, limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &corruptError{name: name, err: err}
	}
	return nil
}

// readFileAtMost returns the content of file name (a slash path) of tree
// t. It returns an error wrapping object.ErrFileNotFound when there is no
// such file, and a corruptError when it holds more than limit bytes (it is
// not read: the branch comes from whoever pushed it).
func readFileAtMost(repo *gitrepo.Repo, t *object.Tree, name string, limit int64) ([]byte, error) {
	e, err := t.FindEntry(name)
	if err != nil || !e.Mode.IsFile() {
		return nil, fmt.Errorf("%s: %w", name, object.ErrFileNotFound)
	}
	size, err := repo.ObjectSize(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if size > limit {
		return nil, &corruptError{name: name, err: fmt.Errorf("%d bytes, more than the %d read", size, limit)}
	}
	return repo.ReadBlob(e.Hash)
}

// corruptError is a file of a checkpoint that cannot be decoded; it is
// ErrCorrupt.
type corruptError struct {
	name string
	err  error
}

func (e *corruptError) Error() string        { return "corrupt " + e.name + ": " + e.err.Error() }
func (e *corruptError) Unwrap() error        { return e.err }
func (e *corruptError) Is(target error) bool { return target == ErrCorrupt }

// Unreadable returns the checkpoints of the metadata branch that cannot be
// read (a metadata.json that cannot be decoded, a slot without one), one
// error each naming the checkpoint, sorted by ID. It reads every
// checkpoint's metadata: meant for doctor, not hot paths.
func (s *Store) Unreadable() ([]error, error) {
	ids, err := s.List()
	if err != nil {
		return nil, err
	}
	var out []error
	for _, id := range ids {
		if _, err := s.Read(id); err != nil && !errors.Is(err, ErrNotFound) {
			out = append(out, err)
		}
	}
	return out, nil
}

// MaxSlotFile bounds a slot file File reads: the slot's small files
// (prompts, task records, references, hide links) come from whoever
// pushed the checkpoint, and a crafted one must not be read whole.
const MaxSlotFile = 32 << 20

// File returns the content of a file of the session slot by slash path
// ("prompt.txt", "tasks/<id>/conclusion.json"). It returns an error wrapping
// object.ErrFileNotFound when the file is absent, and ErrCorrupt when it
// is larger than MaxSlotFile (it is not read).
func (s *Session) File(name string) ([]byte, error) {
	return readFileAtMost(s.repo, s.tree, name, MaxSlotFile)
}

// maxContentHash bounds the content_hash.txt ContentHashIn reads
// ("sha256:" and 64 hex digits, with room to spare).
const maxContentHash = 256

// ContentHashIn returns the content hash of the stored transcript of the
// session slot tree t (its content_hash.txt, trimmed); "" when there is
// none or the file is larger than any content hash (a crafted blob from a
// teammate's push is not read).
func ContentHashIn(repo *gitrepo.Repo, t *object.Tree) string {
	e, err := t.FindEntry(ContentHashFile)
	if err != nil {
		return ""
	}
	if size, err := repo.ObjectSize(e.Hash); err != nil || size > maxContentHash {
		return ""
	}
	b, err := repo.ReadBlob(e.Hash)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// ContentHash returns the content hash of the slot's stored transcript
// (see ContentHashIn); "" when it has none.
func (s *Session) ContentHash() string { return ContentHashIn(s.repo, s.tree) }

// ReadJSONAtMost decodes the file name (a slash path) of the session slot
// into v, as the package's ReadJSON does but with a bound of limit bytes:
// an error wrapping object.ErrFileNotFound when there is no such file, one
// wrapping ErrCorrupt when it cannot be decoded or is over limit bytes,
// which are not read.
func (s *Session) ReadJSONAtMost(name string, v any, limit int64) error {
	return readJSONAtMost(s.repo, s.tree, name, v, limit)
}

// TreeHash returns the hash of the session slot's tree.
func (s *Session) TreeHash() plumbing.Hash { return s.tree.Hash }

// StoredTranscript returns where the session's transcript is stored: its
// chunks in order (full.jsonl then full.jsonl.001, ..., or the legacy
// full.log) and the values moved out of its long lines (see BlobDir).
func (s *Session) StoredTranscript() Stored {
	return StoredIn(s.tree)
}

// Transcript returns the stored (redacted) transcript, its chunks joined
// according to the session's agent and the values of its long lines put
// back.
func (s *Session) Transcript() ([]byte, error) {
	st := s.StoredTranscript()
	if len(st.Chunks) == 0 {
		return nil, fmt.Errorf("session %s: no transcript stored", s.Metadata.SessionID)
	}
	// The agent label is not trusted (Entire 0.4.x wrote "Gemini CLI" on
	// Claude JSONL): the format is detected from the content.
	return ReadTranscript(s.repo, st, "")
}

// Prompts returns the session's prompts from prompt.txt.
func (s *Session) Prompts() []string {
	b, err := s.File(PromptFile)
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\n\n---\n\n")
}

// SlotFiles returns file name (a slash path within a slot) of every
// session slot of checkpoint id, in slot order, nil for a slot without it
// (or with one over limit bytes), without reading the slots' metadata:
// what a reader of one file of many checkpoints (entire blame) needs. It
// returns ErrNotFound when the checkpoint is not stored here.
func (s *Store) SlotFiles(id ID, name string, limit int64) ([][]byte, error) {
	if !id.Valid() {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	dir, err := s.checkpointTree(id)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, idx := range slotIndexes(dir) {
		sub, err := dir.Tree(strconv.Itoa(idx))
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s slot %d: %w", id, idx, err)
		}
		data, _ := readFileAtMost(s.repo, sub, name, limit)
		out = append(out, data)
	}
	return out, nil
}
