// Package undostore keeps undo points as plain files in a git directory:
// one directory per point under <git-dir>/entire-undo/, outside refs/ and
// the object database, so no ref, reflog or push can carry them and
// `git gc --prune=now` leaves them alone. A point is an opaque JSON
// manifest plus one zstd-compressed data stream; the store writes it
// atomically (a temporary directory renamed into place), reads it back
// with bounded reads and a checksum, lists, removes and prunes points.
// What a manifest means is the caller's business (package rewind).
package undostore
