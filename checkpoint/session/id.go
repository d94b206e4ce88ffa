package session

import (
	"crypto/rand"
	"encoding/hex"
)

// NewTurnID returns a new turn ID: 12 lowercase hex characters from 6
// crypto-random bytes (the checkpoint ID format of SPEC 3.5). Safe for
// concurrent use.
func NewTurnID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
