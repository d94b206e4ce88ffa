package redact

import (
	"math"
	"slices"
	"strings"
)

// Entropy detector parameters. See the package comment for the rationale.
const (
	entropyRuleID     = "high-entropy"
	entropyMinLen     = 20   // shorter runs cannot reach the threshold with room to spare
	entropyMaxLen     = 1024 // longer runs are data blobs (images, archives), not credentials
	entropyThreshold  = 4.5  // bits per byte, as in SPEC 7.1
	entropyMinWordLen = 3.0  // mean alphanumeric word length at or above which a run reads as words
)

// idPrefixes are prefixes of well-known opaque identifiers written by the
// agents and their APIs. They are random by design but not secrets.
var idPrefixes = []string{
	"toolu_", "srvtoolu_", "msg_", "req_", "call_", "chatcmpl-", "run_", "thread_",
	"file_", "asst_", "resp_", "tool_", "sess_", "evt_", "batch_",
}

func isTokenByte(c byte) bool { return tokenBytes[c] }

// tokenBytes is the byte table of isTokenByte: [A-Za-z0-9+/_=-].
var tokenBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '+' || c == '/' || c == '_' || c == '=' || c == '-'
	}
	return t
}()

// entropySpans appends to dst the [start,end) spans of s that the
// high-entropy check reports.
func entropySpans(s string, dst [][2]int) [][2]int {
	i := 0
	for i < len(s) {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isTokenByte(s[j]) {
			j++
		}
		if j-i >= entropyMinLen && j-i <= entropyMaxLen && !partOfBase64Data(s, i) && !isChecksumRun(s, i, j) {
			// An '=' inside a run is an assignment (KEY=value), not base64
			// padding: judge both sides on their own.
			part := i
			for k := i; k < j; k++ {
				e := strings.IndexByte(s[k:j], '=')
				if e < 0 {
					break
				}
				k += e
				if k+1 < j && s[k+1] != '=' {
					if k+1-part >= entropyMinLen {
						dst = entropyRun(s[part:k+1], part, dst)
					}
					part = k + 1
				}
			}
			if j-part >= entropyMinLen {
				dst = entropyRun(s[part:j], part, dst)
			}
		}
		i = j
	}
	return dst
}

// entropyRun checks one run found at offset at. A run that reads as a path
// (one of its slash-separated segments is a plain lowercase word such as
// "packages" or "src") is judged segment by segment, so hashes and names
// inside URLs and paths are not mixed into one high-entropy token; any other
// run, such as base64 text that happens to contain slashes, is judged whole.
func entropyRun(run string, at int, dst [][2]int) [][2]int {
	if strings.IndexByte(run, '/') >= 0 && hasWordSegment(run) {
		segStart := 0
		for k := 0; k <= len(run); k++ {
			if k < len(run) && run[k] != '/' {
				continue
			}
			if seg := run[segStart:k]; len(seg) >= entropyMinLen {
				if st, en, ok := entropyCandidate(seg); ok {
					dst = append(dst, [2]int{at + segStart + st, at + segStart + en})
				}
			}
			segStart = k + 1
		}
		return dst
	}
	if st, en, ok := entropyCandidate(run); ok {
		dst = append(dst, [2]int{at + st, at + en})
	}
	return dst
}

// hasWordSegment reports whether a slash-separated segment of run is a
// lowercase word of at least three letters.
func hasWordSegment(run string) bool {
	n := 0
	for k := 0; k <= len(run); k++ {
		if k == len(run) || run[k] == '/' {
			if n >= 3 {
				return true
			}
			n = 0
			continue
		}
		if c := run[k]; c >= 'a' && c <= 'z' && n >= 0 {
			n++
		} else {
			n = -1 << 30
		}
	}
	return false
}

// partOfBase64Data reports whether the run starting at i follows a data URI
// header such as "data:image/png;base64,".
func partOfBase64Data(s string, i int) bool {
	return i >= 7 && s[i-7:i] == "base64,"
}

// entropyCandidate decides whether run is a secret-like token and returns
// the part of it to redact (leading/trailing separators are kept).
func entropyCandidate(run string) (int, int, bool) {
	st, en := 0, len(run)
	for st < en && (run[st] == '/' || run[st] == '-' || run[st] == '_' || run[st] == '+' || run[st] == '=') {
		st++
	}
	for en > st && (run[en-1] == '/' || run[en-1] == '-' || run[en-1] == '_' || run[en-1] == '+') {
		en--
	}
	tok := run[st:en]
	if len(tok) < entropyMinLen {
		return 0, 0, false
	}
	for _, p := range idPrefixes {
		if strings.HasPrefix(tok, p) {
			return 0, 0, false
		}
	}
	if !mayExceedEntropy(tok) || shannonEntropy(tok) <= entropyThreshold {
		return 0, 0, false
	}
	if readsAsWords(tok) {
		return 0, 0, false
	}
	return st, en, true
}

// mayExceedEntropy is a cheap necessary condition for an ASCII token to
// exceed entropyThreshold: a text of n bytes with k distinct bytes has at
// most log2(min(n, k)) bits of entropy per byte, and log2(22) < 4.5.
func mayExceedEntropy(tok string) bool {
	const most = 22 // largest count whose log2 is at most entropyThreshold
	if len(tok) <= most {
		return false
	}
	var seen [4]uint64
	k := 0
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if bit := uint64(1) << (c & 63); seen[c>>6]&bit == 0 {
			seen[c>>6] |= bit
			if k++; k > most {
				return true
			}
		}
	}
	return false
}

// readsAsWords reports whether tok is made of words rather than random
// characters: identifiers (CamelCase, snake_case, kebab-case), file paths and
// test names split into few, long words, while random base62/base64 text
// splits into many one- or two-character pieces.
func readsAsWords(tok string) bool {
	words, alnum := 0, 0
	i := 0
	for i < len(tok) {
		c := tok[i]
		switch {
		case c >= 'a' && c <= 'z':
			j := i
			for j < len(tok) && tok[j] >= 'a' && tok[j] <= 'z' {
				j++
			}
			words++
			alnum += j - i
			i = j
		case c >= 'A' && c <= 'Z':
			j := i
			for j < len(tok) && tok[j] >= 'A' && tok[j] <= 'Z' {
				j++
			}
			if j < len(tok) && tok[j] >= 'a' && tok[j] <= 'z' {
				if j-i > 1 {
					// "HTTPServer": "HTTP" is a word, "S" starts the next one.
					words++
					alnum += j - 1 - i
					i = j - 1
					continue
				}
				// Capitalised word: "Server".
				for j < len(tok) && tok[j] >= 'a' && tok[j] <= 'z' {
					j++
				}
			}
			words++
			alnum += j - i
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(tok) && tok[j] >= '0' && tok[j] <= '9' {
				j++
			}
			words++
			alnum += j - i
			i = j
		default:
			i++
		}
	}
	if words == 0 {
		return true
	}
	return float64(alnum)/float64(words) >= entropyMinWordLen
}

// shannonEntropy computes the Shannon entropy of data the way gitleaks does:
// symbol counts per rune, frequencies relative to the byte length.
func shannonEntropy(data string) float64 {
	if data == "" {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	for _, r := range data {
		if r < 128 {
			ascii[r]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[r]++
	}
	inv := 1.0 / float64(len(data))
	e := 0.0
	for _, n := range ascii {
		if n > 0 {
			f := float64(n) * inv
			e -= f * math.Log2(f)
		}
	}
	// Sum the non-ASCII terms in rune order so the result is deterministic.
	runes := make([]rune, 0, len(other))
	for r := range other {
		runes = append(runes, r)
	}
	slices.Sort(runes)
	for _, r := range runes {
		f := float64(other[r]) * inv
		e -= f * math.Log2(f)
	}
	return e
}
