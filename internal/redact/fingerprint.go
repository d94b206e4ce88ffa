package redact

import (
	"crypto/sha256"
	"encoding/hex"
)

// rulesVersion names the built-in rules and how they are applied; it
// changes when either does, so that data redacted by an older build is
// redacted again before it leaves (2: the rules' trailing boundaries
// accept any character but a letter or a digit).
const rulesVersion = "entire-redact/2"

// Fingerprint identifies the rules a Redactor built with opts applies: the
// built-in rules of this build (gitleaks' configuration and rulesVersion)
// and the user's patterns and allowlist. Stored data carries the
// fingerprint of the rules it went through; a different one means the rules
// changed since. It does not build the rules.
func Fingerprint(opts Options) string {
	h := sha256.New()
	h.Write([]byte(rulesVersion))
	h.Write([]byte{0})
	h.Write([]byte(defaultConfigTOML()))
	for _, list := range [][]string{opts.Patterns, opts.Allow} {
		h.Write([]byte{1})
		for _, p := range list {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
