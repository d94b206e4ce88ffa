package gitrepo

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// ErrNotRepository is returned when no git repository encloses a directory.
var ErrNotRepository = errors.New("not a git repository")

// Repo is an open repository with the paths git would use for it.
//
// A Repo is safe for concurrent use by goroutines that only read objects and
// refs; writes go through methods that are themselves safe (loose objects
// are written atomically, refs are compare-and-swapped).
type Repo struct {
	// Root is the absolute root of the work tree.
	Root string
	// GitDir is the absolute per-worktree git directory (".git" of the main
	// worktree, or ".git/worktrees/<id>" of a linked one).
	GitDir string
	// CommonDir is the absolute directory shared by all worktrees: objects,
	// refs and config live there.
	CommonDir string
	// WorktreeID is the name of a linked worktree ("" for the main one).
	WorktreeID string

	// Git is the go-git repository over the same storage. It has no go-git
	// worktree attached on purpose: go-git's status walks the whole tree.
	Git *git.Repository

	// Log, when set, receives what the repository layer repairs on its
	// own (a stale ref lock removed).
	Log *slog.Logger

	// FastStatus, when set, makes Status run on a private index with
	// git's untracked cache and an fsmonitor hook (see FastStatus).
	FastStatus *FastStatus

	storage *objectStore
	env     func(string) string
	// refLockWait bounds the wait for a ref lock; zero means
	// refLockTimeout (tests shorten it).
	refLockWait time.Duration
	// deflated counts the bytes of the objects this Repo wrote (see
	// deflateFastAfter).
	deflated atomic.Int64
	// packed caches the packed-refs file for ReadRef (packedrefs.go).
	packed packedRefs
	// zlibWriters keeps the deflaters of loose objects for reuse, by
	// level (see zlibWriter).
	zlibWriters [2]sync.Pool
	// flateWriters and blockBuffers are the raw deflaters (by level, as
	// zlibWriters) and output buffers of objects deflated in blocks
	// (writeDeflatedBlocks), kept for reuse.
	flateWriters [2]sync.Pool
	blockBuffers sync.Pool
	// deferral lists the objects written undeflated (DeferDeflation).
	deferral deferState
}

// Options tells Open how to find the repository.
type Options struct {
	// Getenv looks up GIT_DIR and GIT_WORK_TREE as git does inside its hooks.
	// Nil means the process environment.
	Getenv func(string) string
}

// Open finds the repository that contains dir, as git would: GIT_DIR (and
// GIT_WORK_TREE) from the environment when set, else the nearest ".git"
// directory or file walking up from dir. It returns ErrNotRepository when
// there is none, and an error for a bare repository.
func Open(dir string, opts Options) (*Repo, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	root, gitDir, err := locate(absDir, getenv)
	if err != nil {
		return nil, err
	}
	commonDir, err := readCommonDir(gitDir)
	if err != nil {
		return nil, err
	}
	r := &Repo{Root: root, GitDir: gitDir, CommonDir: commonDir, env: getenv}
	if commonDir != gitDir {
		r.WorktreeID = filepath.Base(gitDir)
	}
	fs := dotgit.NewRepositoryFilesystem(osfs.New(gitDir), osfs.New(commonDir))
	r.storage = &objectStore{
		Storage: filesystem.NewStorageWithOptions(fs, cache.NewObjectLRUDefault(), filesystem.Options{}),
		objects: filepath.Join(commonDir, "objects"), runner: r.Runner(), cache: cache.NewObjectLRUDefault(),
	}
	r.Git, err = git.Open(r.storage, nil)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", root, err)
	}
	return r, nil
}

// locate returns the work-tree root and git dir for absDir.
func locate(absDir string, getenv func(string) string) (root, gitDir string, err error) {
	if gd := getenv("GIT_DIR"); gd != "" {
		gitDir = absJoin(absDir, gd)
		if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
			return "", "", fmt.Errorf("GIT_DIR %s: %w", gitDir, ErrNotRepository)
		}
		root = absDir
		if wt := getenv("GIT_WORK_TREE"); wt != "" {
			root = absJoin(absDir, wt)
		}
		return filepath.Clean(root), filepath.Clean(gitDir), nil
	}
	for d := absDir; ; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		fi, err := os.Stat(dot)
		if err == nil {
			if fi.IsDir() {
				return d, dot, nil
			}
			gd, err := readGitFile(dot)
			if err != nil {
				return "", "", err
			}
			return d, gd, nil
		}
		if filepath.Dir(d) == d {
			return "", "", ErrNotRepository
		}
	}
}

// readGitFile resolves a ".git" file ("gitdir: <path>") of a linked worktree
// or submodule.
func readGitFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line := strings.TrimSpace(string(b))
	target, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", fmt.Errorf("read %s: not a gitdir file", path)
	}
	return absJoin(filepath.Dir(path), strings.TrimSpace(target)), nil
}

// readCommonDir follows "<gitDir>/commondir" when present.
func readCommonDir(gitDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", fmt.Errorf("read commondir: %w", err)
	}
	return absJoin(gitDir, strings.TrimSpace(string(b))), nil
}

func absJoin(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
