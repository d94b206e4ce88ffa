package lockfile

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
)

// recordMagic starts every owner record, so that a lock holding anything
// else (git's hash-only lock) is never mistaken for one of ours.
const recordMagic = `{"entire_lock":1,`

// Owner identifies the process that holds a lock.
type Owner struct {
	// PID is the owner's process ID.
	PID int `json:"pid"`
	// Host is the owner's host name; a lock of another host is never judged.
	Host string `json:"host"`
	// Start is the owner's start time as the system reports it (Linux:
	// field 22 of /proc/<pid>/stat, in clock ticks since boot), "" where
	// unknown. It tells a reused pid from the owner.
	Start string `json:"start,omitempty"`
	// Nonce tells two records of one process apart.
	Nonce string `json:"nonce"`
}

// record is the on-disk owner record: recordMagic, the fields, a newline.
type record struct {
	Lock int `json:"entire_lock"`
	Owner
}

// Self returns the owner record of this process.
func Self() Owner { return OwnerOf(os.Getpid()) }

// OwnerOf returns the owner record of process pid of this host (with its
// start time where the system tells it, and a new nonce).
func OwnerOf(pid int) Owner {
	host, _ := os.Hostname()
	return Owner{PID: pid, Host: host, Start: startTime(pid), Nonce: nonce()}
}

// Encode returns o as the owner record a lock file holds: one JSON line.
func (o Owner) Encode() []byte {
	b, _ := json.Marshal(record{Lock: 1, Owner: o})
	return append(b, '\n')
}

// parseOwner reads an owner record; ok is false for anything else.
func parseOwner(b []byte) (Owner, bool) {
	if !bytes.HasPrefix(b, []byte(recordMagic)) {
		return Owner{}, false
	}
	var r record
	if err := json.Unmarshal(bytes.TrimSpace(b), &r); err != nil || r.Lock != 1 || r.PID <= 0 {
		return Owner{}, false
	}
	return r.Owner, true
}

// running reports whether o may be a live process, and why: a process of
// another host cannot be judged and counts as live; one of this host is
// live when its pid exists and, where start times are known, started when
// o says.
func (o Owner) running() (live bool, why string) {
	host, _ := os.Hostname()
	if o.Host != host {
		return true, "held on host " + o.Host
	}
	pid := strconv.Itoa(o.PID)
	if !processExists(o.PID) {
		return false, "its owner, pid " + pid + ", is not running"
	}
	if now := startTime(o.PID); o.Start != "" && now != "" && now != o.Start {
		return false, "its owner, pid " + pid + ", exited and the pid was reused"
	}
	return true, "held by running pid " + pid
}
