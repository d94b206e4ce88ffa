package gitrepo

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
// removed by recordSharedIndexes as soon as the private index no longer
// links to them: a newer one of ours replaced them, or a status with the
// file monitor wrote the private index whole (git does). Kept longer, one
// (8 MB on 100k files) would double what the private index costs in the
// git directory. A status that read the
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

// recordSharedIndexes keeps the list of ours (file) right after a status
// on the private index: the shared index the private index links to now
// (linked, "" for none), when it appeared during this run (it is not in
// before), is added; every other of ours is removed, as the private index
// no longer needs it (a newer one replaced it, or git wrote the private
// index whole, which it does when the status ran with the file monitor).
// A shared index that is not ours (the user's split index, even one their
// git wrote while our status ran) is never touched. Problems are ignored:
// a file left behind costs disk only, and one removed too soon makes a
// status fail over to the plain one.
func recordSharedIndexes(dir, file string, before map[string]bool, linked func() string) {
	ours := readLines(file)
	link := linked()
	changed := false
	if strings.HasPrefix(link, sharedIndexPrefix) && !strings.ContainsAny(link, `/\`) && !ours[link] && !before[link] {
		ours[link] = true
		changed = true
	}
	for name := range ours {
		if name == link {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err == nil || os.IsNotExist(err) {
			delete(ours, name)
			changed = true
		}
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
