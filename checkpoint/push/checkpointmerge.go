package push

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// checkpointID returns the checkpoint whose directory is at path
// ("a3/b2c4d5e6f7" for a3b2c4d5e6f7).
func checkpointID(path string) (checkpoint.ID, bool) {
	shard, rest, ok := strings.Cut(path, "/")
	if !ok || len(shard) != 2 || strings.Contains(rest, "/") {
		return "", false
	}
	id := checkpoint.ID(shard + rest)
	return id, id.Valid()
}

// slot is one session slot of a checkpoint directory.
type slot struct {
	entry object.TreeEntry
	tree  *object.Tree
	meta  checkpoint.SessionMetadata
}

// mergeCheckpoint merges the two versions of checkpoint id's tree by
// session (see MergeTrees); dir is where the checkpoint is, "" for the
// root of its own ref (SPEC 10.3), else its directory on the metadata
// branch. It falls back to the plain union when either side's metadata
// cannot be read.
func (m *treeMerger) mergeCheckpoint(local, remote plumbing.Hash, id checkpoint.ID, dir string) (plumbing.Hash, error) {
	lt, rt, err := m.trees(local, remote)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	lslots, lerr := m.slots(lt)
	rslots, rerr := m.slots(rt)
	var rootMeta checkpoint.RootMetadata
	rootErr := checkpoint.ReadJSON(m.repo, rt, checkpoint.MetadataFile, &rootMeta)
	if lerr != nil || rerr != nil || rootErr != nil {
		return m.merge(local, remote, dir)
	}

	// Everything but the slots and the root metadata: plain union.
	entries := map[string]object.TreeEntry{}
	other := func(t *object.Tree) map[string]object.TreeEntry {
		out := map[string]object.TreeEntry{}
		for _, e := range t.Entries {
			if _, isSlot := slotIndex(e); !isSlot && e.Name != checkpoint.MetadataFile {
				out[e.Name] = e
			}
		}
		return out
	}
	lo, ro := other(lt), other(rt)
	for name, e := range lo {
		entries[name] = e
	}
	for name, re := range ro {
		le, ok := lo[name]
		if !ok || le == re || le.Mode != filemode.Dir || re.Mode != filemode.Dir {
			entries[name] = re
			continue
		}
		h, err := m.merge(le.Hash, re.Hash, joinPath(dir, name))
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}

	// Slots: the remote's as they are, then local sessions the remote
	// lacks, each at the next free index.
	final := map[int]slot{}
	next := 0
	known := map[string]bool{}
	for idx, s := range rslots {
		final[idx] = s
		known[s.meta.SessionID] = true
		next = max(next, idx+1)
	}
	moved := false
	for _, idx := range sortedIndexes(lslots) {
		s := lslots[idx]
		if known[s.meta.SessionID] {
			continue
		}
		known[s.meta.SessionID] = true
		final[next] = s
		next++
		moved = true
	}
	for idx, s := range final {
		name := strconv.Itoa(idx)
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: s.entry.Hash}
	}

	if root, err := rt.FindEntry(checkpoint.MetadataFile); err == nil && !moved {
		entries[checkpoint.MetadataFile] = *root
	} else {
		h, err := m.writeRoot(id, dir, rootMeta, final)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries[checkpoint.MetadataFile] = object.TreeEntry{Name: checkpoint.MetadataFile, Mode: filemode.Regular, Hash: h}
	}
	return m.write(entries)
}

// slots reads the session slots of a checkpoint directory with their
// metadata.
func (m *treeMerger) slots(t *object.Tree) (map[int]slot, error) {
	out := map[int]slot{}
	for _, e := range t.Entries {
		idx, ok := slotIndex(e)
		if !ok {
			continue
		}
		sub, err := m.tree(e.Hash)
		if err != nil {
			return nil, err
		}
		s := slot{entry: e, tree: sub}
		if err := checkpoint.ReadJSON(m.repo, sub, checkpoint.MetadataFile, &s.meta); err != nil {
			return nil, err
		}
		if s.meta.SessionID == "" {
			return nil, fmt.Errorf("session slot %d has no session_id", idx)
		}
		out[idx] = s
	}
	return out, nil
}

// writeRoot stores the root metadata.json of a checkpoint with the slots
// final, computed as the checkpoint store computes it; version, strategy
// and branch come from base.
func (m *treeMerger) writeRoot(id checkpoint.ID, dir string, base checkpoint.RootMetadata, final map[int]slot) (plumbing.Hash, error) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	idxs := sortedIndexes(final)
	var paths []checkpoint.SessionPaths
	var metas []*checkpoint.SessionMetadata
	for _, idx := range idxs {
		for len(paths) < idx {
			paths, metas = append(paths, checkpoint.SessionPaths{}), append(metas, nil)
		}
		s := final[idx]
		paths = append(paths, checkpoint.SlotPathsIn(prefix, idx, s.tree))
		meta := s.meta
		metas = append(metas, &meta)
	}
	latest := checkpoint.SessionMetadata{CLIVersion: base.CLIVersion, Strategy: base.Strategy, Branch: base.Branch}
	root := checkpoint.Summarize(id, latest, paths, metas)
	data, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode checkpoint %s metadata: %w", id, err)
	}
	return m.repo.WriteBlob(append(data, '\n'))
}

// slotIndex returns the index of a session slot directory entry.
func slotIndex(e object.TreeEntry) (int, bool) {
	if e.Mode != filemode.Dir {
		return 0, false
	}
	n, err := strconv.Atoi(e.Name)
	if err != nil || n < 0 || strconv.Itoa(n) != e.Name {
		return 0, false
	}
	return n, true
}

func sortedIndexes(m map[int]slot) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
