package redact

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"strings"
)

// Checksums written by package managers into files that agents read all
// the time look random and exceed the entropy threshold, yet are public:
//
//   - a Go module hash in go.sum and go.work.sum: "h1:" and the standard
//     base64 of a SHA-256 (44 characters, one "=" of padding);
//   - an npm integrity string in package-lock.json (and Subresource
//     Integrity): "sha512-" and the standard base64 of a SHA-512 (88
//     characters, "==" of padding).
//
// The high-entropy check keeps exactly these shapes: the prefix at a word
// boundary, followed by strict base64 of exactly the digest's size and
// nothing more. A token that merely contains "h1:" or "sha512-" is judged
// as any other. The rules of gitleaks still apply to them.

// goSumPrefix and npmIntegrityPrefix start the two checksum shapes.
const (
	goSumPrefix        = "h1:"
	npmIntegrityPrefix = "sha512-"
)

// isChecksumRun reports whether the token run s[i:j] (maximal: the bytes
// around it are not token bytes) is one of the checksum shapes above.
func isChecksumRun(s string, i, j int) bool {
	run := s[i:j]
	switch {
	case len(run) == base64.StdEncoding.EncodedLen(sha256.Size) && i >= len(goSumPrefix) &&
		s[i-len(goSumPrefix):i] == goSumPrefix && (i == len(goSumPrefix) || !isTokenByte(s[i-len(goSumPrefix)-1])):
		return isStrictBase64Of(run, sha256.Size)
	case len(run) == len(npmIntegrityPrefix)+base64.StdEncoding.EncodedLen(sha512.Size) && strings.HasPrefix(run, npmIntegrityPrefix):
		return isStrictBase64Of(run[len(npmIntegrityPrefix):], sha512.Size)
	}
	return false
}

// isStrictBase64Of reports whether b64 is the padded standard base64 of
// exactly n bytes, with no stray bits in its last character.
func isStrictBase64Of(b64 string, n int) bool {
	b, err := base64.StdEncoding.Strict().DecodeString(b64)
	return err == nil && len(b) == n
}
