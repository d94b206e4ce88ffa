package githook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/entirecli/entire/internal/atomicfile"
)

// Options says where and how to install.
type Options struct {
	// RepoRoot is a directory inside the work tree (normally its root).
	RepoRoot string
	// LocalDev makes the shims run `go run ./cmd/entire/main.go` (settings
	// local_dev).
	LocalDev bool
	// Warn receives one line per backup, restore and warning, as printed by
	// `entire enable` on stderr. Nil discards them.
	Warn io.Writer
	// Env is the environment of the git commands used to find the hooks
	// directory; nil means os.Environ().
	Env []string
}

// Result reports what Install or Uninstall did.
type Result struct {
	// Dir is the hooks directory used.
	Dir string
	// Changed counts hook files written (Install) or removed and restored
	// (Uninstall). Zero means nothing changed.
	Changed int
	// Messages are the lines also written to Options.Warn, e.g.
	// "[entire] Backed up existing commit-msg to commit-msg.pre-entire".
	Messages []string
}

func (r *Result) say(w io.Writer, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.Messages = append(r.Messages, msg)
	if w != nil {
		fmt.Fprintln(w, msg)
	}
}

// Install writes the shims (Names) into the hooks directory (created 0755),
// files mode 0755, written atomically.
//
//   - A foreign hook (no Marker) is renamed to <hook>.pre-entire and chained.
//     If a backup already exists (a tool replaced our shim after an earlier
//     install), that older backup is first moved to <hook>.pre-entire.<n>,
//     so no foreign hook is ever overwritten.
//   - A foreign hook identical (bytes and mode) to the existing backup, as
//     left by a tool that regenerates its hooks, is removed instead, so
//     backups do not pile up.
//   - A shim of ours (any version) is rewritten only if it differs from the
//     current one; identical files are not touched.
//
// Install is idempotent: a second run reports Changed == 0. On error, the
// hooks already handled stay installed; a foreign hook is never lost.
func Install(opts Options) (Result, error) {
	dir, err := opts.HooksDir()
	res := Result{Dir: dir}
	if err != nil {
		return res, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("install git hooks: %w", err)
	}
	for _, hook := range Names() {
		if err := installOne(dir, hook, opts, &res); err != nil {
			return res, fmt.Errorf("install git hook %s: %w", hook, err)
		}
	}
	return res, nil
}

func installOne(dir, hook string, opts Options, res *Result) error {
	path := filepath.Join(dir, hook)
	backup := path + BackupSuffix
	cur, exists, err := readHook(path)
	if err != nil {
		return err
	}
	if exists && !isOurs(cur) && sameFile(path, backup) {
		// A tool (husky, lefthook) rewrote the hook it had before we
		// were installed: the backup already holds exactly this.
		if err := os.Remove(path); err != nil {
			return err
		}
		res.say(opts.Warn, "[entire] %s was rewritten with the content of %s%s; chaining to the backup", hook, hook, BackupSuffix)
		exists = false
	}
	if exists && !isOurs(cur) {
		if fileExists(backup) {
			older, err := freeName(backup)
			if err != nil {
				return err
			}
			if err := os.Rename(backup, older); err != nil {
				return err
			}
			res.say(opts.Warn, "[entire] Moved older backup %s%s to %s", hook, BackupSuffix, filepath.Base(older))
		}
		if err := os.Rename(path, backup); err != nil {
			return err
		}
		res.say(opts.Warn, "[entire] Backed up existing %s to %s%s", hook, hook, BackupSuffix)
		exists = false
	}
	want, err := Script(hook, opts.LocalDev, fileExists(backup))
	if err != nil {
		return err
	}
	if exists && bytes.Equal(cur, []byte(want)) {
		if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o111 == 0o111 {
			return nil
		}
	}
	if err := writeExecutable(path, []byte(want)); err != nil {
		return err
	}
	res.Changed++
	return nil
}

// Uninstall removes our shims and puts each <hook>.pre-entire back in its
// place (a rename, so bytes and mode are exactly restored). A backup whose
// path is now occupied by a foreign hook is left alone with a warning, and
// so are older numbered backups (<hook>.pre-entire.<n>). Foreign hooks are
// never removed. Uninstall is idempotent.
//
// It also cleans the directories where older versions installed (Entire
// 0.4.x used <git-dir>/hooks whatever core.hooksPath said): shims with the
// Marker are removed there and their backups restored.
func Uninstall(opts Options) (Result, error) {
	dir, legacy, err := opts.dirs()
	res := Result{Dir: dir}
	if err != nil {
		return res, err
	}
	for _, d := range append([]string{dir}, legacy...) {
		for _, hook := range Names() {
			if err := uninstallOne(d, hook, opts, &res); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

func uninstallOne(dir, hook string, opts Options, res *Result) error {
	path := filepath.Join(dir, hook)
	backup := path + BackupSuffix
	cur, exists, err := readHook(path)
	if err != nil {
		return fmt.Errorf("uninstall git hook %s: %w", hook, err)
	}
	if exists && isOurs(cur) {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("uninstall git hook %s: %w", hook, err)
		}
		res.Changed++
		exists = false
	}
	if fileExists(backup) {
		if exists {
			res.say(opts.Warn, "[entire] %s is not an Entire hook; leaving %s%s in place", hook, hook, BackupSuffix)
		} else {
			if err := os.Rename(backup, path); err != nil {
				return fmt.Errorf("restore git hook %s: %w", hook, err)
			}
			res.Changed++
			res.say(opts.Warn, "[entire] Restored %s from %s%s", hook, hook, BackupSuffix)
		}
	}
	if older, _ := filepath.Glob(backup + ".[0-9]*"); len(older) > 0 {
		res.say(opts.Warn, "[entire] Older backups of %s left in %s: %d file(s)", hook, dir, len(older))
	}
	return nil
}

// Installed reports whether all the hooks exist in the hooks directory and
// carry the Marker. The error is that of finding the directory.
func Installed(opts Options) (bool, error) {
	dir, err := opts.HooksDir()
	if err != nil {
		return false, err
	}
	return InstalledIn(dir), nil
}

// InstalledIn is Installed for a known hooks directory; it costs five small
// file reads and no git call.
func InstalledIn(dir string) bool {
	for _, hook := range Names() {
		cur, exists, err := readHook(filepath.Join(dir, hook))
		if err != nil || !exists || !isOurs(cur) {
			return false
		}
	}
	return true
}

// CurrentIn reports whether every hook in dir is exactly the shim Install
// would write now (for localDev, chained when a backup exists) and
// executable. A false result on an install that InstalledIn accepts means
// an older version of the shims (one whose failure aborted a commit, say):
// the hooks' self-healing then runs Install, which rewrites them. It costs
// a few small file reads and no git call.
func CurrentIn(dir string, localDev bool) bool {
	for _, hook := range Names() {
		path := filepath.Join(dir, hook)
		cur, exists, err := readHook(path)
		if err != nil || !exists {
			return false
		}
		want, err := Script(hook, localDev, fileExists(path+BackupSuffix))
		if err != nil || !bytes.Equal(cur, []byte(want)) {
			return false
		}
		if info, err := os.Stat(path); err != nil || info.Mode().Perm()&0o111 != 0o111 {
			return false
		}
	}
	return true
}

// sameFile reports whether a and b are regular files with equal bytes and
// mode.
func sameFile(a, b string) bool {
	ia, err := os.Lstat(a)
	if err != nil || !ia.Mode().IsRegular() {
		return false
	}
	ib, err := os.Lstat(b)
	if err != nil || !ib.Mode().IsRegular() || ia.Mode() != ib.Mode() || ia.Size() != ib.Size() {
		return false
	}
	da, err := os.ReadFile(a)
	if err != nil {
		return false
	}
	db, err := os.ReadFile(b)
	return err == nil && bytes.Equal(da, db)
}

func isOurs(content []byte) bool { return bytes.Contains(content, []byte(Marker)) }

// readHook reads a hook file; a missing file is (nil, false, nil).
func readHook(path string) ([]byte, bool, error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		return data, true, nil
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			// A dangling symlink: foreign, keep it.
			return nil, true, nil
		}
		return nil, false, nil
	}
	return nil, false, err
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// freeName returns the first of base.1, base.2, ... that does not exist.
func freeName(base string) (string, error) {
	for n := 1; n < 1000; n++ {
		p := base + "." + strconv.Itoa(n)
		if !fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no free backup name for %s", base)
}

// writeExecutable writes data to path via a temp file in the same
// directory, fsynced, mode 0755, then renamed over path.
func writeExecutable(path string, data []byte) error {
	_, err := atomicfile.WriteWith(path, data, atomicfile.Options{Perm: 0o755, Sync: atomicfile.SyncFile, NoMkdir: true})
	return err
}
