package gitrepo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// An incremental status is the hooks' status without git reading the
// index: the last full status is kept (FastStatus.CacheFile) with the
// watcher's token taken before it ran, and the next status re-evaluates
// only the paths the watcher saw change since that token. On 100k files a
// full status, even on the private index with the monitor, costs the read
// of a 10 MB index and a pass over its 100k entries (200 ms on a slow
// machine); the incremental one costs what changed.
//
// A changed path is judged as git would against HEAD, which is sound only
// while the index equals HEAD (the last full status showed nothing staged,
// and the user's index is the same file or its cache tree is HEAD's tree):
// a tracked file's content is hashed by `git hash-object --stdin-paths`
// (git's clean filters and line-ending rules apply), an untracked file is
// asked of `git check-ignore --no-index`. Anything it cannot judge the way
// git would makes the status a full one: HEAD moved, the index changed in
// content, something staged, a rule file changed (.gitignore,
// .gitattributes, info/exclude, a config file, the global excludes file),
// a nested repository, a path git cannot name on a line, a configuration
// it does not model (core.ignoreCase, core.symlinks=false, sparse
// checkout, SHA-256), or a watcher that cannot tell what changed.

// statusCacheVersion is written in the cache's header; another version is
// not read.
const statusCacheVersion = 1

// maxStatusCache bounds the cache file read back.
const maxStatusCache = 64 << 20

// maxIgnoredKept bounds the untracked paths the cache remembers as
// ignored (the hooks' own log in .entire/, build output): past it the
// oldest are forgotten and asked again when they change.
const maxIgnoredKept = 4096

// maxExpanded bounds the paths a changed directory may stand for (the
// tracked files below it, the cached entries): past it the status is a
// full one, which costs no more.
const maxExpanded = 50_000

// statusCache is a full status and what it is valid for.
type statusCache struct {
	// Token is the watcher's token taken before the status ran.
	Token string `json:"token"`
	// Head is the commit the entries compare with; Index the stamp of the
	// user's index then (indexStamp); Rules the stamp of what else rules
	// a status (rulesStamp); FileMode whether the executable bit counts.
	Head     string `json:"head"`
	Index    string `json:"index"`
	Rules    string `json:"rules"`
	FileMode bool   `json:"file_mode"`
	// Excludes is core.excludesFile (one of the files Rules stamps).
	Excludes string `json:"excludes,omitempty"`
	// entries are the status's records; ignored the untracked paths found
	// ignored since (none is in entries).
	entries []StatusEntry
	ignored []string
}

// cacheHeader is the first line of the cache file: the cache's fields
// and the sizes of the two NUL-separated sections that follow (entries
// as `git status --porcelain=v1 -z` prints them, then ignored paths), so
// that paths are kept byte for byte.
type cacheHeader struct {
	Version int `json:"version"`
	statusCache
	EntriesLen int `json:"entries_len"`
	IgnoredLen int `json:"ignored_len"`
}

// writeStatusCache writes c to file atomically.
func writeStatusCache(file string, c *statusCache) error {
	var ents, ign bytes.Buffer
	for _, e := range c.entries {
		ents.WriteByte(e.X)
		ents.WriteByte(e.Y)
		ents.WriteByte(' ')
		ents.WriteString(e.Path)
		ents.WriteByte(0)
	}
	for _, p := range c.ignored {
		ign.WriteString(p)
		ign.WriteByte(0)
	}
	hdr, err := json.Marshal(cacheHeader{Version: statusCacheVersion, statusCache: *c, EntriesLen: ents.Len(), IgnoredLen: ign.Len()})
	if err != nil {
		return err
	}
	out := make([]byte, 0, len(hdr)+1+ents.Len()+ign.Len())
	out = append(append(append(append(out, hdr...), '\n'), ents.Bytes()...), ign.Bytes()...)
	// A cache: a crash may lose it (the next status is a full one), so
	// nothing is fsynced.
	_, err = atomicfile.WriteWith(file, out, atomicfile.Options{Perm: 0o600, Sync: atomicfile.SyncNone})
	return err
}

// readStatusCache reads a cache writeStatusCache wrote; nil when there is
// none or it cannot be used.
func readStatusCache(file string) *statusCache {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStatusCache+1))
	if err != nil || len(data) > maxStatusCache {
		return nil
	}
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		return nil
	}
	var h cacheHeader
	if json.Unmarshal(line, &h) != nil || h.Version != statusCacheVersion || h.EntriesLen < 0 || h.IgnoredLen < 0 ||
		h.EntriesLen+h.IgnoredLen != len(rest) {
		return nil
	}
	c := h.statusCache
	if c.entries, err = ParseStatus(rest[:h.EntriesLen]); err != nil {
		return nil
	}
	for _, p := range bytes.Split(rest[h.EntriesLen:], []byte{0}) {
		if len(p) > 0 {
			c.ignored = append(c.ignored, string(p))
		}
	}
	return &c
}

// statusConfig is what a status's configuration says about how far an
// incremental status can follow it.
type statusConfig struct {
	excludesFile string
	fileMode     bool
	// unmodelled names a setting the incremental status does not follow
	// ("" when none is set).
	unmodelled string
}

// readStatusConfig asks git for the settings that change what a status
// reports.
func (r *Repo) readStatusConfig(ctx context.Context) (statusConfig, error) {
	out, err := r.RunGit(ctx, "config", "-z", "--get-regexp",
		`^(core\.(excludesfile|filemode|ignorecase|symlinks|sparsecheckout)|extensions\.objectformat|index\.sparse)$`)
	var ge *GitError
	if err != nil && !(errors.As(err, &ge) && ge.ExitCode == 1) { // 1: none is set
		return statusConfig{}, err
	}
	c := statusConfig{fileMode: true}
	for _, rec := range bytes.Split(out, []byte{0}) {
		key, val, _ := strings.Cut(string(rec), "\n")
		on := isTrue(val)
		switch key {
		case "core.excludesfile":
			c.excludesFile = expandHome(val)
		case "core.filemode":
			c.fileMode = on
		case "core.ignorecase", "core.sparsecheckout", "index.sparse":
			if on {
				c.unmodelled = key
			}
		case "core.symlinks":
			if !on {
				c.unmodelled = key
			}
		case "extensions.objectformat":
			if !strings.EqualFold(val, "sha1") {
				c.unmodelled = key
			}
		}
	}
	return c, nil
}

// isTrue reads a git boolean ("" is true: a key without a value).
func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "yes", "on", "1":
		return true
	}
	return false
}

// expandHome expands a leading "~/" as git does for path settings.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// rulesStamp identifies the files outside the work tree that rule a
// status: the configuration files, info/exclude, the global excludes
// file. A change to any of them makes the next status a full one.
func (r *Repo) rulesStamp(excludesFile string) string {
	files := []string{
		filepath.Join(r.CommonDir, "config"), filepath.Join(r.GitDir, "config.worktree"),
		filepath.Join(r.CommonDir, "info", "exclude"), excludesFile,
	}
	if g := r.getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	}
	home, _ := os.UserHomeDir()
	xdg := r.getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "ignore"))
	}
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f)
		b.WriteByte('=')
		if f != "" {
			if fi, err := os.Stat(f); err == nil {
				b.WriteString(indexStamp(fi))
			}
		}
		b.WriteByte(';')
	}
	return b.String()
}

// getenv looks a variable up as the repository was opened with.
func (r *Repo) getenv(k string) string {
	if r.env != nil {
		return r.env(k)
	}
	return os.Getenv(k)
}

// statusBaseline is what a full status needs to be kept as a cache: read
// before the status runs, so that whatever changes meanwhile is judged
// again by the next status.
type statusBaseline struct {
	token string
	head  plumbing.Hash
	index string
	cfg   statusConfig
	rules string
}

// baseline reads a statusBaseline; false when the configuration rules the
// incremental status out.
func (r *Repo) baseline(ctx context.Context, token string) (statusBaseline, bool) {
	b := statusBaseline{token: token}
	if token == "" {
		return b, false
	}
	var err error
	if b.head, err = r.Head(); err != nil || b.head.IsZero() {
		return b, false
	}
	fi, err := os.Stat(filepath.Join(r.GitDir, "index"))
	if err != nil {
		return b, false
	}
	b.index = indexStamp(fi)
	if b.cfg, err = r.readStatusConfig(ctx); err != nil || b.cfg.unmodelled != "" {
		return b, false
	}
	b.rules = r.rulesStamp(b.cfg.excludesFile)
	return b, true
}

// keep writes the cache of a full status taken at baseline b, when its
// entries allow an incremental status to follow: nothing staged, nothing
// unmerged.
func (r *Repo) keep(file string, b statusBaseline, entries []StatusEntry) {
	for _, e := range entries {
		if !(e.X == ' ' || e.X == '?') || !(e.Y == ' ' || e.Y == 'M' || e.Y == 'D' || e.Y == 'T' || e.Y == '?') {
			_ = os.Remove(file) // staged or unmerged: the next status is a full one
			return
		}
	}
	c := &statusCache{Token: b.token, Head: b.head.String(), Index: b.index, Rules: b.rules, FileMode: b.cfg.fileMode,
		Excludes: b.cfg.excludesFile, entries: entries}
	if err := writeStatusCache(file, c); err != nil && r.Log != nil {
		r.Log.Warn("keep the status for the next one", "error", err)
	}
}

// errFullStatus says why an incremental status gave way to a full one.
type errFullStatus struct{ why string }

func (e *errFullStatus) Error() string { return "full status needed: " + e.why }

func fullStatus(format string, args ...any) error {
	return &errFullStatus{why: fmt.Sprintf(format, args...)}
}

// incrementalStatus returns the status that c's entries become once the
// changed paths (the watcher's answer since c.Token, newToken) are judged
// again, and writes it back as the new cache. An *errFullStatus says the
// change is one it cannot judge as git would.
func (r *Repo) incrementalStatus(ctx context.Context, file string, c *statusCache, newToken string, changed []string) ([]StatusEntry, error) {
	head, err := r.Head()
	if err != nil {
		return nil, err
	}
	if head.String() != c.Head {
		return nil, fullStatus("HEAD moved")
	}
	if r.rulesStamp(c.Excludes) != c.Rules {
		return nil, fullStatus("a configuration or exclude file changed")
	}
	headTree, err := r.CommitTree(head)
	if err != nil {
		return nil, err
	}
	indexPath := filepath.Join(r.GitDir, "index")
	fi, err := os.Stat(indexPath)
	if err != nil {
		return nil, fullStatus("no index")
	}
	if stamp := indexStamp(fi); stamp != c.Index {
		// Rewritten: by a refresh of its stat data (any git status), or
		// with other content. Its cache tree tells.
		root, valid, err := indexTreeRoot(indexPath)
		if err != nil || !valid || root != headTree.Hash {
			return nil, fullStatus("the index changed")
		}
		c.Index = stamp
	}
	j := &judge{r: r, head: headTree, fileMode: c.FileMode, parents: NewParents(r.Root), nested: map[string]bool{}}
	cand, err := j.candidates(c, changed)
	if err != nil {
		return nil, err
	}
	ignored := make(map[string]bool, len(c.ignored))
	for _, p := range c.ignored {
		ignored[p] = true
	}
	results, candIgnored, err := j.judgeAll(ctx, cand, ignored)
	if err != nil {
		return nil, err
	}
	byPath := make(map[string]StatusEntry, len(c.entries)+len(results))
	for _, e := range c.entries {
		byPath[e.Path] = e
	}
	for _, p := range cand {
		delete(byPath, p)
	}
	for _, e := range results {
		byPath[e.Path] = e
	}
	entries := make([]StatusEntry, 0, len(byPath))
	for _, e := range byPath {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(a, b int) bool { return entries[a].Path < entries[b].Path })

	keep := make([]string, 0, len(c.ignored)+len(candIgnored))
	isCand := make(map[string]bool, len(cand))
	for _, p := range cand {
		isCand[p] = true
	}
	for _, p := range c.ignored {
		if !isCand[p] {
			keep = append(keep, p)
		}
	}
	keep = append(keep, candIgnored...)
	if len(keep) > maxIgnoredKept {
		keep = keep[len(keep)-maxIgnoredKept:]
	}
	next := *c
	next.Token, next.entries, next.ignored = newToken, entries, keep
	if err := writeStatusCache(file, &next); err != nil {
		return nil, fmt.Errorf("keep the status: %w", err)
	}
	return entries, nil
}

// judge decides the status of single paths against HEAD.
type judge struct {
	r        *Repo
	head     *object.Tree
	fileMode bool
	parents  *Parents
	nested   map[string]bool // directory -> holds a .git (another repository)
}

// candidates returns the paths whose status must be judged again: the
// changed paths and, for a changed directory (the watcher's "dir/": made,
// removed or renamed), the paths below it that the cache or HEAD knows.
func (j *judge) candidates(c *statusCache, changed []string) ([]string, error) {
	set := map[string]bool{}
	add := func(p string) error {
		if p == "" || set[p] {
			return nil
		}
		base := path.Base(p)
		switch {
		case base == ".gitignore" || base == ".gitattributes":
			return fullStatus("%s changed", p)
		case strings.ContainsAny(p, "\n\r"):
			return fullStatus("a path with a line break changed")
		case p == ".git" || strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || strings.HasSuffix(p, "/.git"):
			return nil
		}
		set[p] = true
		if len(set) > maxExpanded {
			return fullStatus("more than %d paths changed", maxExpanded)
		}
		return nil
	}
	for _, p := range changed {
		dir, isDir := strings.CutSuffix(p, "/")
		if err := add(dir); err != nil {
			return nil, err
		}
		if !isDir || dir == "" {
			continue
		}
		prefix := dir + "/"
		for _, e := range c.entries {
			if strings.HasPrefix(e.Path, prefix) {
				if err := add(e.Path); err != nil {
					return nil, err
				}
			}
		}
		for _, p := range c.ignored {
			if strings.HasPrefix(p, prefix) {
				if err := add(p); err != nil {
					return nil, err
				}
			}
		}
		if err := j.headFilesUnder(dir, add); err != nil {
			return nil, err
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// headFilesUnder calls fn with every file HEAD tracks below dir (none
// when dir is no directory of HEAD).
func (j *judge) headFilesUnder(dir string, fn func(string) error) error {
	e, err := j.head.FindEntry(dir)
	if err != nil || e.Mode != filemode.Dir {
		return nil
	}
	t, err := j.r.Git.TreeObject(e.Hash)
	if err != nil {
		return fmt.Errorf("read tree %s: %w", dir, err)
	}
	walker := object.NewTreeWalker(t, true, nil)
	defer walker.Close()
	for {
		name, entry, err := walker.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("walk tree %s: %w", dir, err)
		}
		if entry.Mode == filemode.Dir {
			continue
		}
		if err := fn(dir + "/" + name); err != nil {
			return err
		}
	}
}

// headEntry returns what HEAD holds at p: a file's entry, or ok=false for
// nothing (or a directory). inSubmodule is true when p is a submodule or
// lies inside one: the status ignores submodules.
func (j *judge) headEntry(p string) (e object.TreeEntry, ok, inSubmodule bool) {
	t := j.head
	parts := strings.Split(p, "/")
	for i, name := range parts {
		var found *object.TreeEntry
		for k := range t.Entries {
			if t.Entries[k].Name == name {
				found = &t.Entries[k]
				break
			}
		}
		if found == nil {
			return object.TreeEntry{}, false, false
		}
		if found.Mode == filemode.Submodule {
			return object.TreeEntry{}, false, true
		}
		if i == len(parts)-1 {
			if found.Mode == filemode.Dir {
				return object.TreeEntry{}, false, false
			}
			return *found, true, false
		}
		if found.Mode != filemode.Dir {
			return object.TreeEntry{}, false, false
		}
		sub, err := j.r.Git.TreeObject(found.Hash)
		if err != nil {
			return object.TreeEntry{}, false, false
		}
		t = sub
	}
	return object.TreeEntry{}, false, false
}

// judgeAll returns the status records of the candidate paths (none for a
// path as HEAD has it, or ignored) and the candidates that are untracked
// and ignored (known from the cache's list, or found so now).
func (j *judge) judgeAll(ctx context.Context, cand []string, ignored map[string]bool) ([]StatusEntry, []string, error) {
	var out []StatusEntry
	var toHash []string
	var hashFor []object.TreeEntry
	var toAsk, stillIgnored []string
	for _, p := range cand {
		he, tracked, inSub := j.headEntry(p)
		if inSub {
			continue
		}
		var fi fs.FileInfo
		var err error
		if parent, _ := j.parents.Blocked(p); parent == "" {
			fi, err = os.Lstat(filepath.Join(j.r.Root, filepath.FromSlash(p)))
		} else {
			err = fs.ErrNotExist // below a link or a file: not in the work tree
		}
		switch {
		case errors.Is(err, fs.ErrNotExist) || isNotDirErr(err):
			if tracked {
				out = append(out, StatusEntry{X: ' ', Y: 'D', Path: p})
			}
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("stat %s: %w", p, err)
		}
		mode := fi.Mode()
		switch {
		case mode.IsDir():
			if tracked {
				out = append(out, StatusEntry{X: ' ', Y: 'D', Path: p})
			}
			continue
		case !mode.IsRegular() && mode&fs.ModeSymlink == 0:
			continue // a socket or a fifo: git shows none
		}
		if !tracked {
			if ignored[p] {
				stillIgnored = append(stillIgnored, p)
				continue
			}
			if nested, err := j.inNestedRepo(p); err != nil || nested {
				return nil, nil, fullStatus("a repository inside the work tree")
			}
			toAsk = append(toAsk, p)
			continue
		}
		isLink := mode&fs.ModeSymlink != 0
		wasLink := he.Mode == filemode.Symlink
		if isLink != wasLink {
			out = append(out, StatusEntry{X: ' ', Y: 'T', Path: p})
			continue
		}
		if isLink {
			target, err := os.Readlink(filepath.Join(j.r.Root, filepath.FromSlash(p)))
			if err != nil {
				return nil, nil, fullStatus("read link %s: %v", p, err)
			}
			if plumbing.ComputeHash(plumbing.BlobObject, []byte(target)) != he.Hash {
				out = append(out, StatusEntry{X: ' ', Y: 'M', Path: p})
			}
			continue
		}
		if j.fileMode && (mode&0o111 != 0) != (he.Mode == filemode.Executable) {
			out = append(out, StatusEntry{X: ' ', Y: 'M', Path: p})
			continue
		}
		toHash = append(toHash, p)
		hashFor = append(hashFor, he)
	}
	var hashes []plumbing.Hash
	var ignoredNow []string
	var hashErr, askErr error
	var wg sync.WaitGroup
	if len(toHash) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hashes, hashErr = j.hashFiles(ctx, toHash)
		}()
	}
	if len(toAsk) > 0 {
		ignoredNow, askErr = j.checkIgnore(ctx, toAsk)
	}
	wg.Wait()
	if hashErr != nil {
		return nil, nil, fullStatus("hash changed files: %v", hashErr)
	}
	if askErr != nil {
		return nil, nil, fullStatus("check ignored files: %v", askErr)
	}
	for i, p := range toHash {
		if hashes[i] != hashFor[i].Hash {
			out = append(out, StatusEntry{X: ' ', Y: 'M', Path: p})
		}
	}
	isIgnored := make(map[string]bool, len(ignoredNow))
	for _, p := range ignoredNow {
		isIgnored[p] = true
	}
	for _, p := range toAsk {
		if !isIgnored[p] {
			out = append(out, StatusEntry{X: '?', Y: '?', Path: p})
		}
	}
	return out, append(stillIgnored, ignoredNow...), nil
}

// inNestedRepo reports whether a directory above the untracked path p
// holds a .git: git then shows that directory, not the files in it.
func (j *judge) inNestedRepo(p string) (bool, error) {
	for i := strings.IndexByte(p, '/'); i >= 0; i = next(p, i) {
		dir := p[:i]
		nested, seen := j.nested[dir]
		if !seen {
			_, err := os.Lstat(filepath.Join(j.r.Root, filepath.FromSlash(dir), ".git"))
			switch {
			case err == nil:
				nested = true
			case errors.Is(err, fs.ErrNotExist) || isNotDirErr(err):
			default:
				return false, err
			}
			j.nested[dir] = nested
		}
		if nested {
			return true, nil
		}
	}
	return false, nil
}

// hashFiles returns the blob each work-tree file would become if added,
// git's filters and line-ending rules applied.
func (j *judge) hashFiles(ctx context.Context, paths []string) ([]plumbing.Hash, error) {
	in := []byte(strings.Join(paths, "\n") + "\n")
	out, err := j.r.RunGitInput(ctx, in, "hash-object", "--stdin-paths")
	if err != nil {
		return nil, err
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(paths) {
		return nil, fmt.Errorf("git hash-object gave %d names for %d files", len(lines), len(paths))
	}
	hashes := make([]plumbing.Hash, len(lines))
	for i, l := range lines {
		if len(l) != 40 {
			return nil, fmt.Errorf("git hash-object: bad name %q", l)
		}
		hashes[i] = plumbing.NewHash(l)
	}
	return hashes, nil
}

// checkIgnore returns which of the untracked paths git ignores. The index
// is not read (--no-index): no path asked is in it.
func (j *judge) checkIgnore(ctx context.Context, paths []string) ([]string, error) {
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	out, err := j.r.RunGitInput(ctx, in.Bytes(), "check-ignore", "-z", "--stdin", "--no-index")
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return nil, nil // none is ignored
	}
	if err != nil {
		return nil, err
	}
	var ignored []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			ignored = append(ignored, string(p))
		}
	}
	return ignored, nil
}
