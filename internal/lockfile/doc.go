// Package lockfile implements exclusive lock files whose staleness can be
// decided: a lock records the process that holds it (pid, host name and
// the process's start time), so that a lock left by a process that was
// killed (SIGKILL, OOM, power loss) can be told from one held by a live
// process, and removed. Git never breaks a stale <ref>.lock; entire breaks
// its own locks only, and a lock with no owner record (git's own, or one
// whose owner died before writing its record) only when it is empty and
// older than a minute.
package lockfile
