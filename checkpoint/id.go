package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
)

// ID is a checkpoint ID: exactly 12 lowercase hex characters.
type ID string

// ErrInvalidID is returned for a string that is not a checkpoint ID.
var ErrInvalidID = errors.New("checkpoint: invalid checkpoint ID")

var idPattern = regexp.MustCompile(`^[0-9a-f]{12}$`)

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
	if !idPattern.MatchString(s) {
		return "", fmt.Errorf("%w: %q (want 12 lowercase hex characters)", ErrInvalidID, s)
	}
	return ID(s), nil
}

// Valid reports whether id has the checkpoint ID format.
func (id ID) Valid() bool { return idPattern.MatchString(string(id)) }

// String returns the ID itself.
func (id ID) String() string { return string(id) }

// Shard returns the directory of the checkpoint on the metadata branch,
// "<id[0:2]>/<id[2:12]>" (for example "a3/b2c4d5e6f7"). id must be valid.
func (id ID) Shard() string { return string(id[:2]) + "/" + string(id[2:]) }
