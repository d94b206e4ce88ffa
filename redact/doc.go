// Package redact removes secrets from text before it is stored in git objects
// that may be pushed to a forge.
//
// A Redactor combines three detectors:
//
//   - the default rule set of gitleaks v8 (its embedded gitleaks.toml), compiled
//     once into a keyword-prefiltered matcher: a rule's regular expression runs
//     only on text that contains one of the rule's keywords (case-insensitive,
//     found with one Aho-Corasick pass), and the rule's entropy threshold,
//     secret group and allowlists (global and per rule: regexes and stopwords;
//     paths and commits do not apply to transcripts) are honoured;
//   - a high-entropy check for token shapes no rule knows: runs of
//     [A-Za-z0-9+/_=-] of at least 20 bytes whose Shannon entropy exceeds 4.5
//     bits per byte and that do not look like words (identifiers, file paths)
//     or like well-known ID shapes (toolu_, msg_, req_ ...). Hex hashes and
//     UUIDs never pass the entropy bar;
//   - user patterns (Options.Patterns), regular expressions whose first
//     non-empty capture group, or whole match, is the secret.
//
// Options.Allow holds regular expressions; a finding whose secret matches one
// of them is dropped, whatever detector produced it.
//
// Every finding is replaced by the literal REDACTED. When a rule defines a
// secret group only that group is replaced, so "password=hunter2..." keeps its
// "password=" part. Overlapping or touching findings are merged into a single
// REDACTED, and every other occurrence of a found secret in the same text (the
// same JSON line, for JSON input) is replaced too. Text that already reads
// REDACTED is never reported again, so redaction is idempotent.
//
// JSON-aware redaction (JSONLine, JSONL, JSONDoc, Transcript) replaces only
// bytes inside JSON string values and keeps everything else byte-for-byte, so
// the output is valid JSON whenever the input was. It skips object keys, the
// values of keys named "signature" or ending in "id" or "ids"
// (case-insensitive), and whole objects whose "type" starts with "image" or
// equals "base64" (inline images). A string value that belongs to an object
// key is scanned together with that key, the way gitleaks sees it in the raw
// file, so {"password":"..."} is caught. Escaped JSON inside a string is
// scanned as decoded text, which still catches the secrets in it.
//
// Redaction is deterministic and line-local: the same input always produces
// the same bytes, and a JSONL line redacts to the same bytes alone or inside
// a file. Callers that append to a transcript can therefore redact only the
// new lines and concatenate the result with the earlier output.
//
// The markers "gitleaks:allow" in the text are deliberately ignored: a
// transcript quoting such a line must still not leak the secret.
//
// A Redactor is safe for concurrent use by multiple goroutines.
package redact
