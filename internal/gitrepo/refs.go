package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/lockfile"
	"github.com/go-git/go-git/v5/plumbing"
)

// ErrRefChanged is returned by UpdateRef when the ref no longer holds the
// expected old value: another writer won the race.
var ErrRefChanged = errors.New("gitrepo: ref changed concurrently")

// ErrRefLocked is returned when a ref stays locked by another process for
// longer than the lock timeout.
var ErrRefLocked = errors.New("gitrepo: ref is locked")

// refLockTimeout bounds how long UpdateRef waits for another writer's lock,
// like git's core.filesRefLockTimeout.
const refLockTimeout = 3 * time.Second

// ReadRef returns the hash a ref points to, following one level of symbolic
// ref. It returns plumbing.ZeroHash and no error when the ref does not exist.
func (r *Repo) ReadRef(name plumbing.ReferenceName) (plumbing.Hash, error) {
	if h, ok := r.readRefFast(name); ok {
		return h, nil
	}
	ref, err := r.Git.Reference(name, true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read ref %s: %w", name, err)
	}
	return ref.Hash(), nil
}

// Head returns the commit HEAD points to, or plumbing.ZeroHash in a
// repository with no commits yet.
func (r *Repo) Head() (plumbing.Hash, error) {
	return r.ReadRef(plumbing.HEAD)
}

// HeadBranch returns the short name of the branch HEAD points to, or "" when
// HEAD is detached.
func (r *Repo) HeadBranch() (string, error) {
	ref, err := r.Git.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	if ref.Type() != plumbing.SymbolicReference {
		return "", nil
	}
	return ref.Target().Short(), nil
}

// UpdateRef moves ref name from old to new under git's lock-file protocol
// (<ref>.lock created exclusively while the ref is changed), so it is safe
// against concurrent git commands as well as against other entire
// processes. old == plumbing.ZeroHash requires that the ref does not exist
// yet. It returns ErrRefChanged when the ref holds anything but old, and
// ErrRefLocked when another live process keeps the lock (a lock left by a
// killed entire is removed, see lockfile.Break, and logged).
//
// Git writes the new value into the lock and renames the lock over the
// ref. Our lock holds its owner record instead (pid, host, start time), so
// that a lock whose owner died can be told from a held one: the new value
// goes to a temporary file renamed over the ref while the lock is held,
// which readers see as atomically as git's rename, and the lock is removed
// afterwards. A kill at any point leaves either no lock or one with a dead
// owner, never a lock that looks like git's own.
func (r *Repo) UpdateRef(name plumbing.ReferenceName, newHash, old plumbing.Hash) error {
	if err := checkRefName(name); err != nil {
		return err
	}
	refPath := filepath.Join(r.refDir(name), filepath.FromSlash(string(name)))
	if err := os.MkdirAll(filepath.Dir(refPath), 0o755); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	wait := r.refLockWait
	if wait == 0 {
		wait = refLockTimeout
	}
	lock, err := lockfile.Acquire(refPath+".lock", lockfile.Options{Timeout: wait, OnBreak: r.LockBroken})
	if errors.Is(err, lockfile.ErrLocked) {
		return fmt.Errorf("update ref %s: %w: %w", name, ErrRefLocked, err)
	}
	if err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	defer lock.Release()
	cur, err := r.ReadRef(name)
	if err != nil {
		return err
	}
	if cur != old {
		return fmt.Errorf("update ref %s: %w (expected %s, found %s)", name, ErrRefChanged, short(old), short(cur))
	}
	// The temporary file lives at the top of the git directory, where
	// neither git nor go-git looks for refs.
	// Not fsynced, as git writes refs by default (core.fsync).
	_, err = atomicfile.WriteWith(refPath, []byte(newHash.String()+"\n"), atomicfile.Options{
		Perm: 0o644, Sync: atomicfile.SyncNone, NoMkdir: true,
		TempDir: r.refDir(name), TempPattern: "entire-ref-*.tmp",
	})
	if err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	return nil
}

// LockBroken logs a stale lock removed (to Log; nothing when it is nil),
// for lockfile.Options.OnBreak.
func (r *Repo) LockBroken(path, why string) {
	if r.Log != nil {
		r.Log.Warn("removed stale lock", "path", path, "reason", why)
	}
}

// UpdateRefFunc moves ref name to the value build returns for its current
// value (plumbing.ZeroHash when the ref does not exist), retrying build when
// another writer moved the ref in between, up to a bounded number of times.
// build must be safe to call again; it typically writes a commit whose parent
// is its argument. Returning the argument unchanged skips the update.
func (r *Repo) UpdateRefFunc(ctx context.Context, name plumbing.ReferenceName, build func(cur plumbing.Hash) (plumbing.Hash, error)) (plumbing.Hash, error) {
	const attempts = 20
	for i := 0; ; i++ {
		cur, err := r.ReadRef(name)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		next, err := build(cur)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if next == cur {
			return cur, nil
		}
		err = r.UpdateRef(name, next, cur)
		if err == nil {
			return next, nil
		}
		if !errors.Is(err, ErrRefChanged) || i == attempts-1 {
			return plumbing.ZeroHash, err
		}
		if ctx.Err() != nil {
			return plumbing.ZeroHash, ctx.Err()
		}
		time.Sleep(time.Duration(i+1) * time.Millisecond)
	}
}

// DeleteRef deletes ref name if it still points to old. It shells out to
// `git update-ref -d` because a ref may also live in packed-refs, which only
// git rewrites safely. A missing ref is not an error.
func (r *Repo) DeleteRef(ctx context.Context, name plumbing.ReferenceName, old plumbing.Hash) error {
	cur, err := r.ReadRef(name)
	if err != nil || cur.IsZero() {
		return err
	}
	// Git waits for no lock: clear a stale one of ours first.
	lockfile.Break(filepath.Join(r.refDir(name), filepath.FromSlash(string(name)))+".lock", lockfile.Options{OnBreak: r.LockBroken})
	args := []string{"update-ref", "-d", string(name)}
	if !old.IsZero() {
		args = append(args, old.String())
	}
	if _, err := r.RunGit(ctx, args...); err != nil {
		return fmt.Errorf("delete ref %s: %w", name, err)
	}
	return nil
}

// ListRefs returns the refs whose names start with prefix (e.g.
// "refs/heads/entire/"), loose and packed. Lock files are not refs (git
// skips names ending in ".lock"); when go-git's walk fails on one (an
// empty lock reads as a broken ref) the list comes from git.
func (r *Repo) ListRefs(prefix string) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	out, err := r.listRefsInProcess(prefix)
	if err == nil {
		return out, nil
	}
	raw, gerr := r.RunGit(context.Background(), "for-each-ref", "--format=%(objectname) %(refname)", prefix)
	if gerr != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	out = map[plumbing.ReferenceName]plumbing.Hash{}
	for _, line := range strings.Split(string(raw), "\n") {
		if h, ref, ok := strings.Cut(line, " "); ok && plumbing.IsHash(h) {
			out[plumbing.ReferenceName(ref)] = plumbing.NewHash(h)
		}
	}
	return out, nil
}

func (r *Repo) listRefsInProcess(prefix string) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	iter, err := r.Git.References()
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	out := map[plumbing.ReferenceName]plumbing.Hash{}
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		n := string(ref.Name())
		if ref.Type() == plumbing.HashReference && strings.HasPrefix(n, prefix) && !strings.HasSuffix(n, ".lock") {
			out[ref.Name()] = ref.Hash()
		}
		return nil
	})
	return out, err
}

// refDir is where git keeps ref name: per-worktree refs (HEAD and
// refs/worktree/, refs/bisect/, refs/rewritten/) under GitDir, all others
// under CommonDir.
func (r *Repo) refDir(name plumbing.ReferenceName) string {
	s := string(name)
	if !strings.HasPrefix(s, "refs/") || strings.HasPrefix(s, "refs/worktree/") ||
		strings.HasPrefix(s, "refs/bisect/") || strings.HasPrefix(s, "refs/rewritten/") {
		return r.GitDir
	}
	return r.CommonDir
}

func checkRefName(name plumbing.ReferenceName) error {
	s := string(name)
	if !strings.HasPrefix(s, "refs/") || strings.Contains(s, "..") || strings.HasSuffix(s, "/") ||
		strings.HasSuffix(s, ".lock") || strings.ContainsAny(s, " ~^:?*[\\\x00") {
		return fmt.Errorf("gitrepo: invalid ref name %q", s)
	}
	return nil
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:7]
}
