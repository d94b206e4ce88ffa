// Package fswatch keeps `git status` below the cost of a scan of the work
// tree. A watcher process per work tree (Run) holds an inotify watch on
// every directory of the tree (.git aside) and a journal of the paths that
// changed; it serves git's fsmonitor hook protocol (version 2) over a unix
// socket, so that a status run with `-c core.fsmonitor=<entire's hook>` on
// a private index lstat()s and reads only what changed.
//
// Every answer is either exact or "/" (everything may have changed), which
// makes git scan as it would without a monitor: a watcher that is not
// running, not ready, restarted, overflowed or out of watches costs speed,
// never correctness. An answer is given only after the watcher has read a
// cookie file it created on receiving the query: inotify keeps one queue in
// order, so every change made before the query is in the answer.
//
// The watcher exits when its work tree (or its state directory) is
// removed, when nobody asked it anything for IdleTimeout, and on Stop.
package fswatch
