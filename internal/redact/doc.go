// Package redact removes secrets from text before it is stored in git objects
// that may be pushed to a forge (SPEC 7.1).
//
// # Detectors
//
// A Redactor combines:
//
//   - the default rule set of gitleaks v8 (its embedded gitleaks.toml),
//     compiled once per process into a keyword-prefiltered matcher: one
//     case-folding Aho-Corasick pass over a text marks the rules whose
//     keywords occur in it, and only those rules' regular expressions run.
//     Each rule's secret group, entropy threshold and allowlists (global and
//     per rule: regexes and stopwords; paths and commits never apply to
//     transcripts) are honoured, so the findings equal those of gitleaks'
//     own detector. The same pass finds literals derived from each rule's
//     expression (regexp/syntax): literals every match starts with, after
//     which the rest of the expression runs anchored, or literals every
//     match contains, around which it runs on bounded windows. A rule thus
//     costs what its literal occurrences cost, not what the text costs, and
//     still finds exactly what a whole-text run finds (plan.go). The
//     literals and group counts of the default rules are generated into
//     plantable_default.go (a test regenerates it and fails when it is out
//     of step), so a process derives a rule's plan only when the rule first
//     runs: building the default rule set costs about 4 ms instead of 15;
//   - two built-in rules gitleaks lacks: "password-assignment" (password,
//     secret and key assignments whose value has characters gitleaks'
//     generic rule refuses, such as password=hunter2!#...) and
//     "uri-credentials" (the password in scheme://user:password@host);
//   - a high-entropy check ("high-entropy") for token shapes no rule knows:
//     runs of [A-Za-z0-9+/_=-] of 20 to 1024 bytes with a Shannon entropy
//     above 4.5 bits per byte that do not read as words. Hex hashes and UUIDs
//     never reach that entropy; identifiers, test names and file paths split
//     into few long words and are kept; URLs and paths are judged segment by
//     segment; toolu_/msg_/req_-style IDs, data:...;base64, payloads, Go
//     module hashes ("h1:" and the base64 of a SHA-256, as in go.sum) and
//     npm integrity strings ("sha512-" and the base64 of a SHA-512, as in
//     package-lock.json) are kept, in exactly those shapes (checksum.go);
//   - user patterns (Options.Patterns, rule IDs "user-pattern-N"). A
//     pattern that does not compile is skipped, not fatal: the others
//     still apply, and Options.Invalid names the skipped ones.
//
// Options.Allow holds regular expressions; a finding whose secret matches one
// of them is dropped, whatever detector produced it. Findings whose secret is
// earlier redaction output are dropped too, so redacting twice changes
// nothing.
//
// # Replacement
//
// Every finding is replaced by the literal REDACTED. When a rule defines a
// secret group only that group is replaced, so "password=..." keeps its
// "password=" part. Overlapping or touching findings merge into one
// REDACTED, and every other occurrence of a found secret (8 bytes or longer)
// in the same text, or the same JSON line, is replaced too. The text
// "gitleaks:allow" is deliberately not honoured: a transcript quoting such a
// line must still not leak it.
//
// # JSON
//
// JSONLine, JSONL, JSONDoc and Transcript change only bytes inside JSON
// string values, in place, and keep everything else byte-for-byte, so valid
// JSON stays valid. Object keys are never changed. Whole objects whose "type"
// starts with "image" or equals "base64" are skipped (inline images). Values
// under keys named "signature" or ending in "id" or "ids" (case-insensitive)
// skip the high-entropy check but not the rules, so {"aws_access_key_id":
// "AKIA..."} is still caught. A member value whose key holds a rule keyword
// is scanned together with its raw key, the way gitleaks sees a file, so
// {"password": "..."} is caught. Escaped JSON inside a string is scanned as
// its decoded text. A line or document that is not JSON gets plain-text
// redaction. ScanJSON reports what would be redacted, for diagnostics such
// as `entire doctor --secrets`; a Finding never carries the secret.
//
// # Stability
//
// Redaction is deterministic and line-local: the same input always produces
// the same bytes, and a JSONL line redacts to the same bytes alone or inside
// a file. A caller that appends to a transcript can therefore redact only the
// new lines and append them to the earlier output.
//
// A Redactor is immutable and safe for concurrent use.
package redact
