package fswatch

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// tokenPrefix starts every token a watcher hands out; a token without it
// (git's own first token, one of another monitor) is answered with "/".
const tokenPrefix = "entire-fsm:"

// maxJournal bounds the number of distinct paths a journal keeps; past it
// the journal forgets them all and answers "/" to every older token.
const maxJournal = 500_000

// journal records which paths changed when, in a sequence of its own. A
// token names one journal (its instance) and one point of its sequence.
// Not safe for concurrent use: the watcher's event loop owns it.
type journal struct {
	instance string
	seq      uint64
	// validFrom is the first sequence number tokens are answered exactly
	// from: tokens older than it predate the watches or an overflow.
	validFrom uint64
	// ready is false until every directory is watched.
	ready bool
	// degraded is set for good when a directory could not be watched:
	// the journal is never complete again.
	degraded bool
	last     map[string]uint64
	// linked are the files with other hard links: a write through a
	// name outside the watched directories (another work tree, a build
	// cache) makes no event here, so every answer names them and git
	// compares their stat data itself.
	linked map[string]bool
}

func newJournal(instance string) *journal {
	return &journal{instance: instance, seq: 1, validFrom: ^uint64(0), last: map[string]uint64{}, linked: map[string]bool{}}
}

// maxLinked bounds the hard-linked files named in every answer; past it
// the journal answers "/" (git checks everything) while it holds more.
const maxLinked = 10_000

// setLinked notes whether path is a file with other hard links.
func (j *journal) setLinked(path string, linked bool) {
	if linked {
		j.linked[path] = true
	} else {
		delete(j.linked, path)
	}
}

// record notes that path (relative to the work tree, slash-separated, a
// trailing slash for a whole directory) changed now.
func (j *journal) record(path string) {
	if path == "" {
		return
	}
	j.seq++
	j.last[path] = j.seq
	if len(j.last) > maxJournal {
		j.invalidate()
	}
}

// invalidate forgets every change: tokens handed out so far are answered
// with "/" (after an overflow of the event queue, or a full journal).
func (j *journal) invalidate() {
	j.seq++
	j.last = map[string]uint64{}
	if j.ready {
		j.validFrom = j.seq
	}
}

// setReady marks the point from which the journal is complete: every
// directory is watched. A degraded journal stays as it is.
func (j *journal) setReady() {
	if j.degraded {
		return
	}
	j.seq++
	j.ready = true
	j.validFrom = j.seq
}

// degrade makes every answer "/" from now on (a watch could not be added).
func (j *journal) degrade() {
	j.degraded = true
	j.ready = false
	j.validFrom = ^uint64(0)
	j.last = map[string]uint64{}
}

// token is the journal's current point as a token.
func (j *journal) token() string {
	return tokenPrefix + j.instance + ":" + strconv.FormatUint(j.seq, 10)
}

// parseToken returns the instance and sequence number of a token.
func parseToken(tok string) (instance string, seq uint64, err error) {
	rest, ok := strings.CutPrefix(tok, tokenPrefix)
	if !ok {
		return "", 0, fmt.Errorf("token %q is not a watcher's", tok)
	}
	inst, num, ok := strings.Cut(rest, ":")
	if !ok || inst == "" {
		return "", 0, fmt.Errorf("token %q has no sequence", tok)
	}
	seq, err = strconv.ParseUint(num, 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("token %q: %w", tok, err)
	}
	return inst, seq, nil
}

// since answers a query for the changes after tok: a new token, and the
// paths changed since tok (sorted), or all=true when the journal cannot
// tell (a token of another instance or from before the journal was
// complete, a journal not ready or degraded).
func (j *journal) since(tok string) (newToken string, paths []string, all bool) {
	newToken = j.token()
	inst, seq, err := parseToken(tok)
	if err != nil || inst != j.instance || !j.ready || seq < j.validFrom || seq > j.seq || len(j.linked) > maxLinked {
		return newToken, nil, true
	}
	for p, s := range j.last {
		if s > seq && !j.linked[p] {
			paths = append(paths, p)
		}
	}
	for p := range j.linked {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return newToken, paths, false
}

// Answer encodes a reply of git's fsmonitor hook protocol version 2: the
// token, then each path, every one NUL-terminated; all=true answers "/",
// which makes git check every path.
func Answer(token string, paths []string, all bool) []byte {
	var b strings.Builder
	b.WriteString(token)
	b.WriteByte(0)
	if all {
		b.WriteString("/")
		b.WriteByte(0)
		return []byte(b.String())
	}
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return []byte(b.String())
}
