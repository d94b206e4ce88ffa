package redact

// Keyword windows.
//
// gitleaks' generic rules start with a lazy, unanchored `[\w.-]{0,50}?`
// prefix, which makes Go's regexp engine crawl through the whole text even
// when a keyword occurs only once. For the rules listed in windowedRules every
// match contains one of the rule's keywords, starts at most 50 bytes (plus the
// rule word) before it and ends either within a bounded distance after it or
// at the first delimiter (whitespace, quote, backtick, semicolon, backslash)
// after the bounded part, because the secret character classes contain no
// delimiter. Running the regular expression only on merged windows around
// keyword occurrences therefore yields exactly the matches of a whole-text
// run; TestWindowedRulesMatchWholeText checks this on the corpora.

// windowSpec bounds the matches of one rule around its keyword occurrences:
// a match starts at most before bytes before a keyword's end and ends at most
// after bytes after it, or further on only through bytes for which extends
// is true.
type windowSpec struct {
	before, after int
	extends       func(c byte) bool
}

// windowedRules lists the rules whose regular expressions were checked by
// hand to fit their window bounds (gitleaks v8.30 default configuration):
//
//   - generic-api-key, hashicorp-tf-password, linear-client-secret,
//     lob-api-key: `[\w.-]{0,50}?` prefix, a rule word of at most 28 bytes, at
//     most 31 bytes of separators and operator, then a secret of at most 150
//     bytes or of [A-Za-z0-9_.=+/-] bytes only; every match holds a keyword;
//   - vault-service-token: a match starts with its keyword "s." or "hvs." and
//     is at most 126 bytes long;
//   - jwt: a match starts with its keyword "ey" and continues through
//     [A-Za-z0-9/\\_.=-] bytes only.
var windowedRules = map[string]windowSpec{
	"generic-api-key":       {before: 128, after: 256, extends: isGenericSecretByte},
	"hashicorp-tf-password": {before: 128, after: 256, extends: isGenericSecretByte},
	"linear-client-secret":  {before: 128, after: 256, extends: isGenericSecretByte},
	"lob-api-key":           {before: 128, after: 256, extends: isGenericSecretByte},
	"vault-service-token":   {before: 16, after: 160, extends: isGenericSecretByte},
	"jwt":                   {before: 16, after: 64, extends: isJWTByte},
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isGenericSecretByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '.' || c == '=' || c == '+' || c == '/' || c == '-'
}

func isJWTByte(c byte) bool {
	return isGenericSecretByte(c) || c == '\\'
}

// keywordWindows returns the merged [start,end) windows of s around the
// keyword ends.
func keywordWindows(s string, ends []int, w windowSpec) [][2]int {
	var out [][2]int
	// scanFrom..stop is the last extension scanned: every byte in it
	// extends and s[stop] does not. Ends grow, so an extension that starts
	// inside it stops at the same place; reusing it keeps this linear.
	scanFrom, stop := -1, -1
	for _, e := range ends {
		st := max(e-w.before, 0)
		en := min(e+w.after, len(s))
		if scanFrom >= 0 && en >= scanFrom && en <= stop {
			en = stop
		} else {
			scanFrom = en
			for en < len(s) && w.extends(s[en]) {
				en++
			}
			stop = en
		}
		// Keep the stop byte and the one after it so a boundary such as
		// `\n` (escaped newline) reads the same as in the whole text.
		en = min(en+2, len(s))
		if n := len(out); n > 0 && st <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], en)
			continue
		}
		out = append(out, [2]int{st, en})
	}
	return out
}
