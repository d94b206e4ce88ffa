package external

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/atomicfile"
)

// ProgramPrefix starts the name of every external agent program.
const ProgramPrefix = "entire-agent-"

// Options says where Discover looks and what it gives the agents.
type Options struct {
	// PATH is the search path (the PATH variable's value); only its
	// absolute entries are searched.
	PATH string
	// RepoRoot is the repository the programs run in.
	RepoRoot string
	// StateDir is the git directory where the transcript copies (under
	// entire-external/<name>) and the cache of info answers live; ""
	// keeps neither.
	StateDir string
	// Only, when set, is the one name to look for.
	Only string
	// Environ is the programs' environment (nil: os.Environ).
	Environ func() []string
	// Builtin reports whether a name is a built-in agent's, which wins.
	Builtin func(name string) bool
}

// Found is one program Discover found.
type Found struct {
	// Name is the agent name (the program's entire-agent-<name>).
	Name string
	// Path is the program's path.
	Path string
	// Agent is the agent, nil when the program was skipped.
	Agent *Agent
	// Err says why a program was skipped: its info failed or was not
	// protocol version 1, or a built-in agent has the name.
	Err error
}

// Discover finds the programs entire-agent-<name> on the absolute entries
// of opts.PATH (the first of a name wins), skips built-in names, and asks
// each for info (answers cached in the state directory by the program's
// path, size and modification time, failures too, so that a broken
// program costs one call until it changes), in name order.
func Discover(ctx context.Context, opts Options) []Found {
	seen := map[string]string{}
	for _, dir := range filepath.SplitList(opts.PATH) {
		if !filepath.IsAbs(dir) {
			// A relative entry resolves against the working directory:
			// for a git hook, whatever repository ran it.
			continue
		}
		names, err := programsIn(dir, opts.Only)
		if err != nil {
			continue
		}
		for _, n := range names {
			if _, ok := seen[n]; !ok {
				seen[n] = filepath.Join(dir, ProgramPrefix+n)
			}
		}
	}
	var out []Found
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	cache := loadCache(opts.StateDir)
	for _, n := range names {
		f := Found{Name: n, Path: seen[n]}
		if opts.Builtin != nil && opts.Builtin(n) {
			f.Err = errBuiltin
			out = append(out, f)
			continue
		}
		r := Runner{Path: f.Path, RepoRoot: opts.RepoRoot, Environ: opts.Environ}
		info, err := cache.info(ctx, r, n)
		if err != nil {
			f.Err = err
		} else {
			copyDir := ""
			if opts.StateDir != "" {
				copyDir = filepath.Join(opts.StateDir, "entire-external", n)
			}
			f.Agent = New(*info, r, copyDir)
		}
		out = append(out, f)
	}
	cache.save()
	return out
}

// errBuiltin is the reason of a program skipped for a built-in name.
var errBuiltin = builtinError{}

type builtinError struct{}

func (builtinError) Error() string { return "a built-in agent has this name" }

// programsIn lists the agent names of the executable regular files
// entire-agent-<name> in dir (only when set: that one).
func programsIn(dir, only string) ([]string, error) {
	var candidates []string
	if only != "" {
		candidates = []string{ProgramPrefix + only}
	} else {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ProgramPrefix) {
				candidates = append(candidates, e.Name())
			}
		}
	}
	var out []string
	for _, c := range candidates {
		name := strings.TrimPrefix(c, ProgramPrefix)
		if len(name) > maxNameLen || !namePattern.MatchString(name) {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, c))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		out = append(out, name)
	}
	return out, nil
}

// Register adds the agents of found to the agent registry (programs
// skipped are left out).
func Register(found []Found) {
	for _, f := range found {
		if f.Agent != nil {
			a := f.Agent
			agent.Register(a.Name(), func() agent.Agent { return a })
		}
	}
}

// cacheFile is the name of the info cache in the state directory.
const cacheFile = "entire-external-agents.json"

// cachedInfo is one program's cached info answer or failure.
type cachedInfo struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Info    *Info  `json:"info,omitempty"`
	Error   string `json:"error,omitempty"`
	// Checked is when a failure was seen (Unix seconds): it is asked
	// again after retryFailure (a program slow once under load is not
	// skipped for ever).
	Checked int64 `json:"checked,omitempty"`
}

// retryFailure is how long a cached info failure stands.
const retryFailure = 10 * time.Minute

// infoCache is the cache of info answers, keyed by program path.
type infoCache struct {
	path    string
	mu      sync.Mutex
	entries map[string]cachedInfo
	dirty   bool
}

func loadCache(stateDir string) *infoCache {
	c := &infoCache{entries: map[string]cachedInfo{}}
	if stateDir == "" {
		return c
	}
	c.path = filepath.Join(stateDir, cacheFile)
	if b, err := os.ReadFile(c.path); err == nil && len(b) < 1<<20 {
		_ = json.Unmarshal(b, &c.entries)
	}
	return c
}

// info returns r's info answer for name, from the cache when the program
// has not changed since.
func (c *infoCache) info(ctx context.Context, r Runner, name string) (*Info, error) {
	fi, err := os.Stat(r.Path)
	if err != nil {
		return nil, err
	}
	key := cachedInfo{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	c.mu.Lock()
	e, ok := c.entries[r.Path]
	c.mu.Unlock()
	if ok && e.Size == key.Size && e.ModTime == key.ModTime {
		if e.Info != nil && e.Info.check(name) == nil {
			return e.Info, nil
		}
		if e.Error != "" && time.Since(time.Unix(e.Checked, 0)) < retryFailure {
			return nil, cachedError(e.Error)
		}
	}
	info, err := r.Info(ctx, name)
	if ctx.Err() != nil {
		return nil, err
	}
	if err != nil {
		key.Error, key.Checked = err.Error(), time.Now().Unix()
	} else {
		key.Info = info
	}
	c.mu.Lock()
	c.entries[r.Path] = key
	c.dirty = true
	c.mu.Unlock()
	return info, err
}

// cachedError is an info failure read from the cache.
type cachedError string

func (e cachedError) Error() string { return string(e) }

func (c *infoCache) save() {
	if c.path == "" || !c.dirty {
		return
	}
	b, err := json.Marshal(c.entries)
	if err == nil {
		_ = atomicfile.Write(c.path, b, 0o600)
	}
}
