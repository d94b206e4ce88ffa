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
	// keep, when set, is a necessary condition for a match around the
	// keyword occurrence ending at end; occurrences failing it get no window.
	keep func(s string, end int) bool
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// vaultTokenStart reports whether the keyword ending at end can start a
// vault-service-token match: `\bhvs.` or `\bs.` followed by 24 alphanumerics.
func vaultTokenStart(s string, end int) bool {
	if end >= 4 && s[end-4:end] == "hvs." && (end == 4 || !isWordByte(s[end-5])) {
		return true
	}
	if end < 2 || s[end-2:end] != "s." || end > 2 && isWordByte(s[end-3]) || end+24 > len(s) {
		return false
	}
	for i := end; i < end+24; i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

// assignmentFollows reports whether, after a keyword ending at end, the
// generic template `[ \t\w.-]{0,20}[\s'"]{0,3}` can reach an operator
// (`=`, `>`, `:`, `||`, `?=` or `,`). A keyword without one cannot start a
// match of the template rules, so its window is not needed.
func assignmentFollows(s string, end int) bool {
	for i := end; i < len(s) && i <= end+23; i++ {
		switch c := s[i]; {
		case c == '=' || c == '>' || c == ':' || c == '|' || c == '?' || c == ',':
			return true
		case isAlnum(c) || c == '_' || c == '.' || c == '-' || c == ' ' || c == '\t' ||
			c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\'' || c == '"':
		default:
			return false
		}
	}
	return false
}

// windowedRules lists the rules whose regular expressions were checked by
// hand to fit their window bounds (gitleaks v8.30 default configuration and
// the built-in rules of this package):
//
//   - generic-api-key, linear-client-secret: a `[\w.-]{0,50}?` prefix, then
//     the rule word, which is the keyword (at most 10 bytes), at most 31
//     bytes of separators and operator, then a secret of at most 150 bytes
//     or of [A-Za-z0-9_.=+/-] bytes only, then a 2-byte boundary;
//   - hashicorp-tf-password: the same shape; its longest word ends with the
//     keyword "password" 20 bytes after the word starts;
//   - lob-api-key: the same shape, but the keyword ("live_", "test_") is in
//     the secret, at most 84 bytes after the match starts;
//   - vault-service-token: a match starts with its keyword "s." or "hvs." and
//     is at most 126 bytes long;
//   - jwt: a match starts with its keyword "ey" and continues through
//     [A-Za-z0-9/\\_.=-] bytes only;
//   - password-assignment: a match starts with its keyword and is at most
//     226 bytes long;
//   - uri-credentials: a match holds "://" at most 24 bytes after it starts
//     and ends at most 302 bytes after it.
var windowedRules = map[string]windowSpec{
	"generic-api-key":        {before: 64, after: 192, extends: isGenericSecretByte, keep: assignmentFollows},
	"linear-client-secret":   {before: 64, after: 192, extends: isGenericSecretByte, keep: assignmentFollows},
	"hashicorp-tf-password":  {before: 96, after: 192, extends: isGenericSecretByte, keep: assignmentFollows},
	"lob-api-key":            {before: 128, after: 256, extends: isGenericSecretByte},
	"vault-service-token":    {before: 16, after: 160, extends: isGenericSecretByte, keep: vaultTokenStart},
	"jwt":                    {before: 16, after: 64, extends: isJWTByte},
	passwordAssignmentRuleID: {before: 16, after: 256, extends: isGenericSecretByte},
	uriCredentialsRuleID:     {before: 32, after: 320, extends: isGenericSecretByte},
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
		if w.keep != nil && !w.keep(s, e) {
			continue
		}
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
