package secretscan

import (
	"bufio"
	"bytes"
	"os"
	"strings"

	"github.com/entirecli/entire/internal/atomicfile"
)

// CleanSet remembers the large blobs a push already scanned and found
// clean under one set of rules (a redaction fingerprint). A transcript
// chunk is stored again, unchanged, by every later checkpoint of its
// session: git lists it as added at every new checkpoint's path, and the
// pre-push scan read the whole transcript at every push (issue 30: 38 ms
// grew to 350 ms over 20 pushes). Only blobs of at least cleanMinSize are
// kept: small ones cost less to read again than to remember.
//
// The file holds the fingerprint on its first line and a blob ID a line;
// it is rewritten whole (atomically). Two pushes saving at once keep one
// of their sets: a blob forgotten is only scanned again.
type CleanSet struct {
	path, fingerprint string
	ids               map[string]bool
	added             bool
}

// cleanMinSize is the least size of a blob a CleanSet keeps.
const cleanMinSize = 256 << 10

// cleanMaxIDs bounds the set: past it the file starts over.
const cleanMaxIDs = 200_000

// LoadCleanSet reads the set at path for fingerprint; a missing file, one
// for other rules, or one that cannot be read is an empty set.
func LoadCleanSet(path, fingerprint string) *CleanSet {
	c := &CleanSet{path: path, fingerprint: fingerprint, ids: map[string]bool{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != fingerprint || fingerprint == "" {
		return c
	}
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); len(id) == 40 {
			c.ids[id] = true
		}
	}
	return c
}

// Has reports whether the blob id was scanned clean.
func (c *CleanSet) Has(id string) bool { return c != nil && c.ids[id] }

// add records the blob id, of size bytes, as scanned clean.
func (c *CleanSet) add(id string, size int64) {
	if c == nil || size < cleanMinSize || c.ids[id] {
		return
	}
	if len(c.ids) >= cleanMaxIDs {
		c.ids = map[string]bool{}
	}
	c.ids[id] = true
	c.added = true
}

// Save writes the set back when it grew.
func (c *CleanSet) Save() error {
	if c == nil || !c.added || c.fingerprint == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString(c.fingerprint + "\n")
	for id := range c.ids {
		b.WriteString(id + "\n")
	}
	return atomicfile.Write(c.path, []byte(b.String()), 0o644)
}
