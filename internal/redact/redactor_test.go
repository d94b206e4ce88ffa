package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"sync"
	"testing"
)

// token returns a deterministic random token (tests keep no literal secrets).
func token(seed uint64, alphabet string, n int) string {
	return randFrom(rand.New(rand.NewPCG(seed, 7)), alphabet, n)
}

func TestText(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	ghp := "ghp_" + token(1, alnum, 36)
	pw := token(2, alnum, 20)
	hi := token(3, alnum, 40)
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain prose", "Refactor the parser and run go test ./...", "Refactor the parser and run go test ./..."},
		{"secret group keeps the key", "password=" + pw, "password=REDACTED"},
		{"whole-match rule", "token " + ghp + " here", "token REDACTED here"},
		{"every occurrence", "GITHUB_TOKEN=" + ghp + "; echo " + ghp, "GITHUB_TOKEN=REDACTED; echo REDACTED"},
		{"occurrence without context", "export PASSWORD=" + pw + "\nlater: " + pw, "export PASSWORD=REDACTED\nlater: REDACTED"},
		{"high entropy", "value " + hi + " end", "value REDACTED end"},
		{"uuid kept", "session 5c0375b4-57a5-4f26-b12d-d022ee4e51b7 ok", "session 5c0375b4-57a5-4f26-b12d-d022ee4e51b7 ok"},
		{"sha1 kept", "commit 394f81fab87f71aa8938d91ff7a067c524ff344b", "commit 394f81fab87f71aa8938d91ff7a067c524ff344b"},
		{"sha256 kept", "sha256:" + strings.Repeat("9f86d081884c7d65", 4), "sha256:" + strings.Repeat("9f86d081884c7d65", 4)},
		{"tool id kept", "see toolu_01A09q90qw90lq917835lqBv and msg_01XFDUDYJgAACzvnptvVoYEL", "see toolu_01A09q90qw90lq917835lqBv and msg_01XFDUDYJgAACzvnptvVoYEL"},
		{"path kept", "/Users/alex/Projects/entire-cli/cmd/entire/cli/strategy/manual_commit_hooks_test", "/Users/alex/Projects/entire-cli/cmd/entire/cli/strategy/manual_commit_hooks_test"},
		{"test name kept", "TestManualCommitStrategy_SaveChanges_WithSubagentTranscriptAndMetadata2", "TestManualCommitStrategy_SaveChanges_WithSubagentTranscriptAndMetadata2"},
		{"url with hash kept", "https://files.pythonhosted.org/packages/a3/b5/c06f1b090a1c875f337e21dd71943bc9d84087f7cdf8c6e9086902c34e42/orjson-3.11.3.whl", "https://files.pythonhosted.org/packages/a3/b5/c06f1b090a1c875f337e21dd71943bc9d84087f7cdf8c6e9086902c34e42/orjson-3.11.3.whl"},
		{"data uri kept", "src=data:image/png;base64," + token(4, b64, 300), "src=data:image/png;base64," + token(4, b64, 300)},
		{"uri password", "postgres://app:" + pw + "@db:5432/x", "postgres://app:REDACTED@db:5432/x"},
		{"uri placeholder kept", "postgres://app:${DB_PASSWORD}@db:5432/x", "postgres://app:${DB_PASSWORD}@db:5432/x"},
		{"code assignment kept", "password = config.Password", "password = config.Password"},
		{"adjacent findings merge", ghp + ghp, "REDACTED"},
		{"already redacted", "password=REDACTED and api_key: REDACTED", "password=REDACTED and api_key: REDACTED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := r.Text(tc.in); got != tc.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if got := r.Text(r.Text(tc.in)); got != r.Text(tc.in) {
				t.Errorf("Text is not idempotent: %q", got)
			}
		})
	}
}

func TestScanFindings(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	ghp := "ghp_" + token(5, alnum, 36)
	s := "a " + ghp + " b"
	fs := r.Scan(s)
	if len(fs) != 1 || fs[0].RuleID != "github-pat" || s[fs[0].Start:fs[0].End] != ghp {
		t.Fatalf("Scan = %v", fs)
	}
	if str := fs[0].String(); strings.Contains(str, ghp) || !strings.Contains(str, "github-pat") {
		t.Errorf("Finding.String() = %q", str)
	}
	if fs := r.Scan("nothing to see here"); len(fs) != 0 {
		t.Errorf("Scan of prose = %v", fs)
	}
}

func TestJSONLine(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	ghp := "ghp_" + token(6, alnum, 36)
	pw := token(7, alnum, 20)
	hi := token(8, alnum, 40)
	img := token(9, b64, 2000)
	tests := []struct {
		name, in, want string
	}{
		{"formatting kept", `{ "a" : "x ` + ghp + ` y" ,  "n": 1 }`, `{ "a" : "x REDACTED y" ,  "n": 1 }`},
		{"key context", `{"password": "` + pw + `"}`, `{"password": "REDACTED"}`},
		{"key context nested", `{"env":{"API_KEY":"` + pw + `"}}`, `{"env":{"API_KEY":"REDACTED"}}`},
		{"keys not redacted", `{"` + ghp + `": 1}`, `{"` + ghp + `": 1}`},
		{"id keys skip entropy", `{"requestId":"` + hi + `","tool_use_ids":["` + hi + `"]}`, `{"requestId":"` + hi + `","tool_use_ids":["` + hi + `"]}`},
		{"id keys still get rules", `{"aws_access_key_id":"AKIA` + token(10, upper32, 16) + `"}`, `{"aws_access_key_id":"REDACTED"}`},
		{"signature skipped", `{"type":"thinking","thinking":"hmm","signature":"` + hi + `"}`, `{"type":"thinking","thinking":"hmm","signature":"` + hi + `"}`},
		{"image block skipped", `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}}`, `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}}`},
		{"image type after data", `{"source":{"data":"` + hi + `","type":"base64"},"type":"image"}`, `{"source":{"data":"` + hi + `","type":"base64"},"type":"image"}`},
		{"sibling of image redacted", `[{"type":"image","source":{"data":"` + hi + `"}},{"type":"text","text":"` + hi + `"}]`, `[{"type":"image","source":{"data":"` + hi + `"}},{"type":"text","text":"REDACTED"}]`},
		{"escapes around secret", `{"t":"caf\u00e9 \"` + ghp + `\"\n\ud83d\ude00"}`, `{"t":"caf\u00e9 \"REDACTED\"\n\ud83d\ude00"}`},
		{"escaped json inside string", `{"content":"{\"token\": \"` + ghp + `\"}"}`, `{"content":"{\"token\": \"REDACTED\"}"}`},
		{"occurrence in other string", `{"a":"password=` + pw + `","b":"echo ` + pw + `"}`, `{"a":"password=REDACTED","b":"echo REDACTED"}`},
		{"glued objects", `{"a":"` + ghp + `"}{"type":"summary","b":"` + ghp + `"}`, `{"a":"REDACTED"}{"type":"summary","b":"REDACTED"}`},
		{"not json", `plain ` + ghp + ` text`, `plain REDACTED text`},
		{"truncated json", `{"a":"` + ghp, `{"a":"REDACTED`},
		{"newline kept", `{"a":"` + ghp + `"}` + "\n", `{"a":"REDACTED"}` + "\n"},
		{"nothing found", `{"type":"user","uuid":"5c0375b4-57a5-4f26-b12d-d022ee4e51b7"}`, `{"type":"user","uuid":"5c0375b4-57a5-4f26-b12d-d022ee4e51b7"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := string(r.JSONLine([]byte(tc.in)))
			if got != tc.want {
				t.Errorf("JSONLine\n got %s\nwant %s", got, tc.want)
			}
			if json.Valid([]byte(tc.in)) && !json.Valid([]byte(got)) {
				t.Errorf("valid JSON became invalid: %s", got)
			}
		})
	}
}

func TestJSONDocKeepsFormatting(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	ghp := "ghp_" + token(11, alnum, 36)
	doc := "{\n  \"messages\": [\n    {\n      \"content\": \"use " + ghp + "\"\n    }\n  ]\n}\n"
	want := "{\n  \"messages\": [\n    {\n      \"content\": \"use REDACTED\"\n    }\n  ]\n}\n"
	if got := string(r.JSONDoc([]byte(doc))); got != want {
		t.Errorf("JSONDoc\n got %q\nwant %q", got, want)
	}
	if got := string(r.Transcript([]byte(doc))); got != want {
		t.Errorf("Transcript\n got %q\nwant %q", got, want)
	}
	fs := r.ScanJSON([]byte(doc))
	if len(fs) != 1 || doc[fs[0].Start:fs[0].End] != ghp {
		t.Errorf("ScanJSON = %v", fs)
	}
}

func TestUserPatternsAndAllow(t *testing.T) {
	t.Parallel()
	ghp := "ghp_" + token(12, alnum, 36)
	r := newTestRedactor(t, Options{
		Patterns: []string{`ACME-[0-9]{6}`, `internal_code=(\w+)`},
		Allow:    []string{`^ghp_` + ghp[4:10]},
	})
	in := "ticket ACME-123456 internal_code=sesame " + ghp
	want := "ticket REDACTED internal_code=REDACTED " + ghp
	if got := r.Text(in); got != want {
		t.Errorf("Text\n got %q\nwant %q", got, want)
	}
	var rules []string
	for _, f := range r.Scan(in) {
		rules = append(rules, f.RuleID)
	}
	if strings.Join(rules, ",") != "user-pattern-1,user-pattern-2" {
		t.Errorf("rules = %v", rules)
	}
}

// An expression that does not compile is skipped, not fatal: the valid
// patterns of the same list still redact, and Invalid names the bad ones.
func TestInvalidPatternSkipped(t *testing.T) {
	t.Parallel()
	opts := Options{
		Patterns: []string{"(", `ACME-[0-9]{6}`},
		Allow:    []string{"[z-a]"},
	}
	r := newTestRedactor(t, opts)
	if got, want := r.Text("ticket ACME-123456 done"), "ticket REDACTED done"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	for _, f := range r.Scan("ticket ACME-123456 done") {
		if f.RuleID != "user-pattern-2" {
			t.Errorf("rule %q, want user-pattern-2 (numbered as in the settings)", f.RuleID)
		}
	}
	bad := opts.Invalid()
	if len(bad) != 2 {
		t.Fatalf("Invalid = %v, want 2 errors", bad)
	}
	want := []string{
		"pattern 1 \"(\" is not a valid regular expression (missing closing ): `(`) and is ignored",
		"allow expression 1 \"[z-a]\" is not a valid regular expression (invalid character class range: `z-a`) and is ignored",
	}
	for i, e := range bad {
		if e.Error() != want[i] {
			t.Errorf("error %d = %q\nwant %q", i, e.Error(), want[i])
		}
		var se *syntax.Error
		if !errors.As(e, &se) {
			t.Errorf("error %d does not wrap the *syntax.Error", i)
		}
	}
	if bad := (Options{Patterns: []string{`ACME-[0-9]{6}`}}).Invalid(); bad != nil {
		t.Errorf("Invalid of valid options = %v", bad)
	}
}

func TestDeterministicAndConcurrent(t *testing.T) {
	t.Parallel()
	r := newTestRedactor(t, Options{})
	var file []byte
	for n, p := range plantedSecrets(4) {
		for _, line := range plantClaude(p, n) {
			file = append(file, line...)
		}
	}
	want := r.JSONL(file)
	r2 := newTestRedactor(t, Options{})
	if !bytes.Equal(r2.JSONL(file), want) {
		t.Fatal("a second Redactor gave different bytes")
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !bytes.Equal(r.JSONL(file), want) {
				errs <- "concurrent JSONL gave different bytes"
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestWindowedRulesMatchWholeText checks that Scan with match plans finds
// exactly what Scan with whole-text runs finds (TestPlansMatchWholeText
// compares rule by rule).
func TestWindowedRulesMatchWholeText(t *testing.T) {
	windowed := newTestRedactor(t, Options{})
	whole := newTestRedactor(t, Options{})
	whole.wholeText = true
	var texts []string
	for _, p := range plantedSecrets(5) {
		texts = append(texts, p.text, "x"+p.text+"\n"+p.text+` "`)
	}
	vault24 := token(40, alnum, 24)
	texts = append(texts,
		"VAULT_TOKEN=hvs."+token(41, urlsafe, 95)+"\n", "token s."+vault24+" ok", "xs."+vault24, "a.s."+vault24+";",
		"linear_api = "+token(42, lowerHx, 32), "LOB_KEY=live_"+token(43, lowerHx, 35),
		`administrator_login_password = "`+token(44, alnum, 12)+`"`,
		"key\t\t: '"+token(45, alnum, 30)+"'", "the key to it is "+token(46, alnum, 30),
		"password      =     "+token(47, alnum, 12)+"!x", "mysql://root:"+token(48, alnum, 10)+"@localhost/db")
	if fixtureDirQuiet() != "" {
		files, _ := loadFixtures(t)
		for _, data := range files {
			for _, line := range bytes.SplitAfter(data, []byte("\n")) {
				strs, err := walkJSON(line)
				if err != nil {
					texts = append(texts, string(line))
					continue
				}
				for _, s := range strs {
					texts = append(texts, decodeJSONString(line[s.start:s.end]))
				}
			}
		}
	}
	for i, s := range texts {
		a, b := windowed.Scan(s), whole.Scan(s)
		if len(a) != len(b) {
			t.Fatalf("text %d: windowed %v, whole %v", i, a, b)
		}
		for k := range a {
			if a[k] != b[k] {
				t.Fatalf("text %d: windowed %v, whole %v", i, a, b)
			}
		}
	}
	t.Logf("%d texts compared", len(texts))
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := Fingerprint(Options{})
	if base == "" || base != Fingerprint(Options{}) {
		t.Fatalf("fingerprint %q not stable", base)
	}
	p := Fingerprint(Options{Patterns: []string{"acme-[a-z]+"}})
	if p == base || p != Fingerprint(Options{Patterns: []string{"acme-[a-z]+"}}) {
		t.Error("a user pattern does not change the fingerprint, or not stably")
	}
	if a := Fingerprint(Options{Allow: []string{"acme-[a-z]+"}}); a == p || a == base {
		t.Error("patterns and allowlist are not told apart")
	}
}
