package gitrepo

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The private index is a split index (git's core.splitIndex): a shared
// part with every entry, written once, and a small part with what changed
// since, which each status writes. On 100k files a status that writes a
// whole index (8 MB, hashed with collision-detecting SHA-1) spends 26 ms
// of its 76 on the write; with the split index the write is under 1 ms.
//
// Git puts the shared part in the git directory as sharedindex.<hash>. Our
// runs pass splitIndex.sharedIndexExpire=never, so that git itself never
// removes a shared index (the user's own, if they split theirs, included);
// the ones our runs create are recorded (private index + ".shared") and
// removed by pruneSharedIndexes as soon as a newer one of ours replaced
// them: kept longer, a replaced one (8 MB on 100k files) would double what
// the private index costs in the git directory. A status that read the
// private index just before it was replaced and then misses its shared part
// fails, and the hook runs the plain status instead.

// sharedIndexPrefix starts the name of every shared index file.
const sharedIndexPrefix = "sharedindex."

// splitIndexArgs are the `git -c` settings of a status on the private
// index.
var splitIndexArgs = []string{"-c", "core.splitIndex=true", "-c", "splitIndex.sharedIndexExpire=never"}

// sharedIndexes returns the names of the shared index files in dir.
func sharedIndexes(dir string) map[string]bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), sharedIndexPrefix) && !strings.HasSuffix(e.Name(), ".lock") {
			out[e.Name()] = true
		}
	}
	return out
}

// recordSharedIndexes adds to the list of ours (file) the shared index a
// status just wrote in dir, then removes the ones of ours a newer one
// replaced. When shared index files appeared that were not there before,
// linked names the one the private index uses ("" when it cannot tell):
// another may be the user's own, written by their git meanwhile, which
// must never be taken for ours and removed. Problems are ignored: a file
// left behind costs disk only, and one removed too soon makes a status
// fail over to the plain one.
func recordSharedIndexes(dir, file string, before map[string]bool, linked func() string) {
	ours := readLines(file)
	changed := false
	for name := range sharedIndexes(dir) {
		if before[name] || ours[name] {
			continue
		}
		if name = linked(); strings.HasPrefix(name, sharedIndexPrefix) && !ours[name] {
			ours[name] = true
			changed = true
		}
		break
	}
	if len(ours) > 1 {
		changed = pruneSharedIndexes(dir, ours) || changed
	}
	if changed {
		names := make([]string, 0, len(ours))
		for n := range ours {
			names = append(names, n)
		}
		sort.Strings(names)
		_ = os.WriteFile(file, []byte(strings.Join(names, "\n")+"\n"), 0o600)
	}
}

// pruneSharedIndexes removes from dir and from ours every shared index of
// ours but the newest (and forgets the ones already gone). It reports
// whether ours changed.
func pruneSharedIndexes(dir string, ours map[string]bool) bool {
	type found struct {
		name string
		mod  time.Time
	}
	var fs []found
	changed := false
	for name := range ours {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			delete(ours, name)
			changed = true
			continue
		}
		fs = append(fs, found{name, fi.ModTime()})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].mod.After(fs[j].mod) })
	for _, f := range fs[min(1, len(fs)):] {
		if os.Remove(filepath.Join(dir, f.name)) == nil {
			delete(ours, f.name)
			changed = true
		}
	}
	return changed
}

// RemoveSharedIndexes removes the shared index files the private index
// indexFile made in the git directory (for `entire disable --uninstall`).
func (r *Repo) RemoveSharedIndexes(indexFile string) {
	for name := range readLines(indexFile + ".shared") {
		if strings.HasPrefix(name, sharedIndexPrefix) && !strings.ContainsAny(name, `/\`) {
			_ = os.Remove(filepath.Join(r.GitDir, name))
		}
	}
}

// readLines returns the non-empty lines of file as a set (empty when it
// cannot be read).
func readLines(file string) map[string]bool {
	out := map[string]bool{}
	b, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out[l] = true
		}
	}
	return out
}
