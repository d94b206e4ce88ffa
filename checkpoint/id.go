package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ID is a checkpoint ID: 12 lowercase hex characters (Entire 0.4.x, SPEC
// 3.5) or a 26-character ULID, Crockford base32 in upper case, which
// today's Entire gives new checkpoints (SPEC 10.2).
type ID string

// ErrInvalidID is returned for a string that is not a checkpoint ID.
var ErrInvalidID = errors.New("checkpoint: invalid checkpoint ID")

var (
	hexPattern  = regexp.MustCompile(`^[0-9a-f]{12}$`)
	ulidPattern = regexp.MustCompile(`^[0-7][0-9A-HJKMNP-TV-Z]{25}$`)
)

// RefPrefix starts the ref of every checkpoint stored in the git-refs
// layout (SPEC 10.3): refs/entire/checkpoints/<last two>/<id>.
const RefPrefix = "refs/entire/checkpoints/"

// NewID returns a fresh random ID from 6 crypto-random bytes.
func NewID() ID {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on supported platforms (Go 1.24+).
		panic(fmt.Sprintf("checkpoint: crypto/rand: %v", err))
	}
	return ID(hex.EncodeToString(b[:]))
}

// ParseID validates s as a checkpoint ID.
func ParseID(s string) (ID, error) {
	if !ID(s).Valid() {
		return "", fmt.Errorf("%w: %q (want 12 lowercase hex characters or a 26-character ULID)", ErrInvalidID, s)
	}
	return ID(s), nil
}

// NormalizeID returns s as a checkpoint ID would be written: trimmed, a
// 26-character string in upper case (a ULID), anything else in lower case
// (a hex ID). The result is not validated.
func NormalizeID(s string) string {
	s = strings.TrimSpace(s)
	if len(s) == 26 {
		return strings.ToUpper(s)
	}
	return strings.ToLower(s)
}

// Valid reports whether id has the checkpoint ID format.
func (id ID) Valid() bool { return hexPattern.MatchString(string(id)) || id.IsULID() }

// IsULID reports whether id is a ULID (SPEC 10.2).
func (id ID) IsULID() bool { return ulidPattern.MatchString(string(id)) }

// RefName returns the ref that holds checkpoint id in the git-refs layout,
// refs/entire/checkpoints/<id's last two characters>/<id>. id must be
// valid.
func (id ID) RefName() plumbing.ReferenceName {
	return plumbing.ReferenceName(RefPrefix + string(id[len(id)-2:]) + "/" + string(id))
}

// IDOfRef returns the checkpoint ID a ref of the git-refs layout names;
// false for any other ref (a shard that is not the ID's last two
// characters included).
func IDOfRef(name plumbing.ReferenceName) (ID, bool) {
	rest, ok := strings.CutPrefix(string(name), RefPrefix)
	if !ok {
		return "", false
	}
	shard, raw, ok := strings.Cut(rest, "/")
	id := ID(raw)
	if !ok || !id.Valid() || shard != raw[len(raw)-2:] {
		return "", false
	}
	return id, true
}

// String returns the ID itself.
func (id ID) String() string { return string(id) }

// Shard returns the directory of the checkpoint on the metadata branch,
// "<id[0:2]>/<id[2:12]>" (for example "a3/b2c4d5e6f7"). id must be valid.
func (id ID) Shard() string { return string(id[:2]) + "/" + string(id[2:]) }
