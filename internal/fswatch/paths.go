package fswatch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// DirName is the watcher's state directory under a work tree's git
// directory: the cookie files, the watcher's log and the private index of
// the status runs.
const DirName = "entire-fsmonitor"

// maxSocketPath keeps a socket path inside sun_path (108 bytes on Linux,
// 104 on the BSDs and macOS, the terminating NUL included).
const maxSocketPath = 100

// StateDir returns the watcher's state directory of a work tree whose
// (per-worktree) git directory is gitDir.
func StateDir(gitDir string) string { return filepath.Join(gitDir, DirName) }

// IndexFile returns the private index of the status runs of stateDir's
// work tree: a copy of the user's index that git may rewrite with its
// untracked cache and fsmonitor extensions.
func IndexFile(stateDir string) string { return filepath.Join(stateDir, "index") }

// StatusCacheFile returns where the hooks keep the last status of
// stateDir's work tree, from which the next one judges again only what the
// watcher saw change.
func StatusCacheFile(stateDir string) string { return filepath.Join(stateDir, "status") }

// LogFile returns the file the watcher of stateDir writes its few lines
// to (its standard error).
func LogFile(stateDir string) string { return filepath.Join(stateDir, "watcher.log") }

func cookieDir(stateDir string) string { return filepath.Join(stateDir, "cookies") }

// Prepare makes the state directory and the cookie directory. The hook
// that starts a watcher calls it, so that the watcher itself never creates
// anything under a work tree that may be removed under it (a test's
// temporary directory): its socket and lock live in RuntimeDir.
func Prepare(stateDir string) error {
	if err := os.MkdirAll(cookieDir(stateDir), 0o700); err != nil {
		return fmt.Errorf("watcher state directory: %w", err)
	}
	return nil
}

// hashBytes is how much of a state directory's SHA-256 names its socket
// and lock.
const hashBytes = 10

// runtimeDir returns the directory of the watchers' sockets and locks,
// private to the user: <temp>/entire-fsm-<uid>, made 0700 when missing,
// refused when it is a link, someone else's, or open to others.
func runtimeDir() (string, error) {
	name := "entire-fsm-" + strconv.Itoa(os.Getuid())
	dir := filepath.Join(os.TempDir(), name)
	if len(dir)+len("/")+2*hashBytes+len(".sock") > maxSocketPath {
		dir = filepath.Join("/tmp", name)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", fmt.Errorf("watcher runtime directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("watcher runtime directory: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		return "", fmt.Errorf("watcher runtime directory %s: not a private directory of this user", dir)
	}
	return dir, nil
}

// runtimeName returns the path in the runtime directory of stateDir's
// watcher with the given suffix.
func runtimeName(stateDir, suffix string) (string, error) {
	dir, err := runtimeDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(stateDir))
	return filepath.Join(dir, hex.EncodeToString(sum[:hashBytes])+suffix), nil
}

// SocketPath returns where the watcher of stateDir listens.
func SocketPath(stateDir string) (string, error) { return runtimeName(stateDir, ".sock") }
