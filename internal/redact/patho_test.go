package redact

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPathologicalInputsStayFast guards against quadratic behaviour on
// adversarial text: long runs of keywords, many repeated secrets and many
// candidates on one long line.
func TestPathologicalInputsStayFast(t *testing.T) {
	r := newTestRedactor(t, Options{})
	ghp := "ghp_" + token(30, alnum, 36)
	inputs := map[string]string{
		"keyword run":      strings.Repeat("key", 100_000),
		"keyword tokens":   strings.Repeat("apikey=", 40_000),
		"vault keyword":    strings.Repeat("s.", 150_000),
		"jwt keyword":      strings.Repeat("ey", 150_000),
		"repeated secret":  strings.Repeat(ghp+" ", 5_000),
		"distinct secrets": distinctSecrets(3_000),
		"long token":       strings.Repeat(token(31, alnum, 1000), 300),
		// One long line of candidates for a rule whose anchored rest
		// reaches to the end of the line (curl-auth-header's `.*?`).
		"curl line": strings.Repeat("curl https://example.org/x ", 5_000),
		// Many distinct findings on one long line: the generic rule's
		// line allowlist, the shadowing check and occurrence expansion
		// must not cost the line's length per finding.
		"generic line": genericLine(4_000),
		// Many distinct secrets sharing their first bytes (fine-grained
		// GitHub tokens): occurrence expansion must not compare each
		// place they start with every secret.
		"shared prefix": sharedPrefixSecrets(40_000),
	}
	for name, s := range inputs {
		start := time.Now()
		r.Text(s)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s (%d bytes) took %v", name, len(s), d)
		} else {
			t.Logf("%s (%d bytes): %v", name, len(s), d)
		}
	}
	// A JSON document of many strings and many secrets: occurrence
	// expansion must not cost the number of secrets per string.
	doc := jsonStrings(40_000)
	start := time.Now()
	r.JSONDoc(doc)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("json strings (%d bytes) took %v", len(doc), d)
	} else {
		t.Logf("json strings (%d bytes): %v", len(doc), d)
	}
}

func distinctSecrets(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("ghp_" + token(uint64(100+i), alnum, 36) + "\n")
	}
	return b.String()
}

func genericLine(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("apikey=" + token(uint64(500+i), alnum, 20) + " ")
	}
	return b.String()
}

func sharedPrefixSecrets(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("github_pat_" + token(uint64(900+i), alnum, 82) + " ")
	}
	return b.String()
}

// jsonStrings returns a JSON array of n short strings, every tenth a
// secret.
func jsonStrings(n int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i%10 == 0 {
			b.WriteString(`"ghp_` + token(uint64(700+i), alnum, 36) + `",`)
		}
		b.WriteString(`"word ` + strconv.Itoa(i) + `",`)
	}
	b.WriteString(`"end"]`)
	return []byte(b.String())
}
