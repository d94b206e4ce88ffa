package redact

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// ruleSecret is a (rule ID, raw secret text) pair, comparable across engines.
type ruleSecret struct{ rule, secret string }

func gitleaksFindings(tb testing.TB, d *detect.Detector, data []byte) map[ruleSecret]bool {
	tb.Helper()
	out := map[ruleSecret]bool{}
	for _, f := range d.DetectString(string(data)) {
		out[ruleSecret{f.RuleID, f.Secret}] = true
	}
	return out
}

func ourFindings(r *Redactor, data []byte) map[ruleSecret]bool {
	out := map[ruleSecret]bool{}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		for _, f := range r.ScanJSON(line) {
			if !isExtraRule(f.RuleID) {
				out[ruleSecret{f.RuleID, string(line[f.Start:f.End])}] = true
			}
		}
	}
	return out
}

// sameSecret reports whether two findings of the same rule name the same
// secret. gitleaks reads the raw JSON text, so a secret class that admits
// backslashes (jwt) drags JSON escapes such as `\n` or `\"` into its secret;
// we read decoded strings and stop at the real newline or quote. The secrets
// are the same when one is the other plus such escape debris. Ours may
// also be gitleaks' extended over what the rule's class goes on with
// (extendedSecret; TestMatcherEqualsGitleaksOnDecodedText checks the
// extension exactly).
func sameSecret(gl, ours ruleSecret) bool {
	if gl.rule != ours.rule {
		return false
	}
	if gl.secret == ours.secret || strings.HasPrefix(ours.secret, gl.secret) {
		return true
	}
	if rest, ok := strings.CutPrefix(gl.secret, ours.secret); ok {
		return strings.HasPrefix(rest, `\`)
	}
	return false
}

// compareFindings reports pairs found by only one engine. A pair only we
// found is fine when it is another occurrence of a secret gitleaks found.
func compareFindings(gl, ours map[ruleSecret]bool) (onlyGitleaks, onlyOurs []string) {
	matched := func(k ruleSecret, set map[ruleSecret]bool, glSide bool) bool {
		for o := range set {
			if glSide && sameSecret(k, o) || !glSide && (sameSecret(o, k) || o.secret == k.secret) {
				return true
			}
		}
		return false
	}
	for k := range gl {
		if !matched(k, ours, true) {
			onlyGitleaks = append(onlyGitleaks, fmt.Sprintf("%s (%d bytes)", k.rule, len(k.secret)))
		}
	}
	for k := range ours {
		if !matched(k, gl, false) && !gitleaksPathRule(k.rule) {
			onlyOurs = append(onlyOurs, fmt.Sprintf("%s (%d bytes)", k.rule, len(k.secret)))
		}
	}
	sort.Strings(onlyGitleaks)
	sort.Strings(onlyOurs)
	return onlyGitleaks, onlyOurs
}

// extendedSecret reports whether ours is gitleaks' secret gl extended over
// characters the rule's groups admit (rule.extend): where the relaxed
// boundary let the first alternative of a rule stop early, this package
// redacts as far as the secret goes on.
func extendedSecret(r *Redactor, rule, gl, ours string) bool {
	rest, ok := strings.CutPrefix(ours, gl)
	if !ok {
		return false
	}
	for _, ru := range r.rules {
		if ru.id == rule {
			var extend []rune
			if ru.lazy != nil {
				_, extend = ru.lazy.source()
			}
			for _, c := range rest {
				if !inRanges(extend, c) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// gitleaksPathRule reports whether gitleaks runs the rule only on files
// whose path matches (hashicorp-tf-password: *.tf, *.hcl). Text scanned
// here has no path, so gitleaks never reports such a rule; this package
// runs its expression on every text (a password in a transcript is one
// wherever it came from).
func gitleaksPathRule(id string) bool {
	vc, err := decodeGitleaksConfig(defaultConfigTOML())
	if err != nil {
		return false
	}
	for _, r := range vc.Rules {
		if r.ID == id {
			return r.Path != "" && r.Regex != ""
		}
	}
	return false
}

// newGitleaks returns gitleaks' own detector with its default rules as
// this package runs them: their trailing boundary relaxed
// (relaxTrailingBoundary). The comparisons then check the engine, and
// TestRelaxedBoundaryAgreesWithGitleaks checks the relaxation.
func newGitleaks(tb testing.TB) *detect.Detector {
	tb.Helper()
	vc, err := decodeGitleaksConfig(defaultConfigTOML())
	if err != nil {
		tb.Fatal(err)
	}
	for i := range vc.Rules {
		vc.Rules[i].Regex, _ = relaxTrailingBoundary(vc.Rules[i].Regex)
	}
	cfg, err := vc.Translate()
	if err != nil {
		tb.Fatal(err)
	}
	return detect.NewDetector(cfg)
}

func TestPlantedFindingsMatchGitleaks(t *testing.T) {
	r := newTestRedactor(t, Options{})
	d := newGitleaks(t)
	var file []byte
	kinds := plantedSecrets(3)
	for n, p := range kinds {
		lines := plantClaude(p, n)
		for _, pos := range []string{"escaped-json", "nested-json", "tool-input", "tool-output", "user-prompt"} {
			file = append(file, lines[pos]...)
		}
	}
	gl := gitleaksFindings(t, d, file)
	ours := ourFindings(r, file)
	// The generator must produce what gitleaks calls each kind.
	for _, p := range kinds {
		if p.rule == "" {
			continue
		}
		found := false
		for k := range gl {
			if k.rule == p.rule {
				found = true
			}
		}
		if !found {
			t.Errorf("gitleaks did not report %s for planted %s", p.rule, p.kind)
		}
	}
	onlyGL, onlyOurs := compareFindings(gl, ours)
	t.Logf("planted corpus: gitleaks %d findings, ours %d (gitleaks rules only)", len(gl), len(ours))
	for _, s := range onlyGL {
		t.Errorf("only gitleaks found %s", s)
	}
	for _, s := range onlyOurs {
		t.Errorf("only we found %s", s)
	}
}

func TestFixtureFindingsMatchGitleaks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gitleaks over the whole fixture corpus")
	}
	r := newTestRedactor(t, Options{})
	gc := newCachedGitleaks(t)
	defer gc.save()
	root := fixtureDir(t)
	for _, f := range fixtureTranscripts(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		gl := gc.findings(filepath.ToSlash(name), data)
		var ours map[ruleSecret]bool
		if strings.HasSuffix(f, ".json") || !slices.Contains([]byte{'{'}, bytes.TrimSpace(data)[0]) || bytes.HasPrefix(data, []byte("{\n")) {
			ours = map[ruleSecret]bool{}
			for _, fd := range r.ScanJSON(data) {
				if !isExtraRule(fd.RuleID) {
					ours[ruleSecret{fd.RuleID, string(data[fd.Start:fd.End])}] = true
				}
			}
		} else {
			ours = ourFindings(r, data)
		}
		onlyGL, onlyOurs := compareFindings(gl, ours)
		t.Logf("%s: gitleaks %d, ours %d", filepath.Base(f), len(gl), len(ours))
		for _, s := range onlyGL {
			t.Errorf("%s: only gitleaks found %s", filepath.Base(f), s)
		}
		for _, s := range onlyOurs {
			t.Errorf("%s: only we found %s", filepath.Base(f), s)
		}
	}
}

// TestSyntheticFindingsMatchGitleaks compares both engines on real fixture
// lines with planted secret lines mixed in (1 MB; gitleaks needs seconds).
// Everything gitleaks finds in the raw file we find too. We find more:
// gitleaks reads raw JSON, where a secret followed by an escaped quote (\")
// fails the rules' closing boundary; TestMatcherEqualsGitleaksOnDecodedText
// shows those extra findings are exactly what gitleaks reports on the
// decoded strings.
func TestSyntheticFindingsMatchGitleaks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gitleaks over a 1 MB transcript")
	}
	data := syntheticTranscript(t, 1<<20, 3)
	gl := gitleaksFindings(t, newGitleaks(t), data)
	ours := ourFindings(newTestRedactor(t, Options{}), data)
	onlyGL, onlyOurs := compareFindings(gl, ours)
	t.Logf("synthetic %d bytes: gitleaks %d findings, ours %d (gitleaks rules only)", len(data), len(gl), len(ours))
	for _, s := range onlyGL {
		t.Errorf("only gitleaks found %s", s)
	}
	for _, s := range onlyOurs {
		t.Logf("only we found %s (escaped-quote boundary in the raw file)", s)
	}
}

// scannedTexts returns the texts the engine scans for one JSON line: each
// string value decoded, with its raw key in front when the key holds a rule
// keyword (see detectMember).
func scannedTexts(r *Redactor, line []byte) []string {
	strs, err := walkJSON(line)
	if err != nil {
		return []string{string(line)}
	}
	var out []string
	for _, js := range strs {
		text := decodeJSONString(line[js.start:js.end])
		if js.keyStart >= 0 && r.keyTriggers(line[js.keyStart:js.start]) {
			text = string(line[js.keyStart:js.start]) + text + `"`
		}
		out = append(out, text)
	}
	return out
}

// TestMatcherEqualsGitleaksOnDecodedText runs gitleaks' detector and our
// compiled matcher on the very texts the engine scans (planted corpus and
// a synthetic transcript) and requires the same (rule, secret) findings.
func TestMatcherEqualsGitleaksOnDecodedText(t *testing.T) {
	r := newTestRedactor(t, Options{})
	d := newGitleaks(t)
	var corpus []byte
	for n, p := range plantedSecrets(6) {
		for _, pos := range []string{"escaped-json", "nested-json", "tool-input", "tool-output", "user-prompt"} {
			corpus = append(corpus, plantClaude(p, n)[pos]...)
		}
		corpus = append(corpus, p.text+"\n"...)
	}
	size := 1 << 20
	if testing.Short() {
		size = 64 << 10
	}
	corpus = append(corpus, syntheticTranscript(t, size, 3)...)
	if !testing.Short() && fixtureDirQuiet() != "" {
		files, _ := loadFixtures(t)
		for _, f := range files {
			corpus = append(corpus, f...)
			corpus = append(corpus, '\n')
		}
	}
	texts, found := 0, 0
	for _, line := range bytes.SplitAfter(corpus, []byte("\n")) {
		for _, text := range scannedTexts(r, line) {
			texts++
			want := map[ruleSecret]bool{}
			for _, f := range d.DetectString(text) {
				want[ruleSecret{f.RuleID, f.Secret}] = true
			}
			got := map[ruleSecret]bool{}
			for _, f := range r.detect(text, false) {
				if !isExtraRule(f.RuleID) {
					got[ruleSecret{f.RuleID, text[f.Start:f.End]}] = true
				}
			}
			found += len(got)
			same := func(gl, ours ruleSecret) bool {
				return gl == ours || gl.rule == ours.rule && extendedSecret(r, gl.rule, gl.secret, ours.secret)
			}
			has := func(set map[ruleSecret]bool, k ruleSecret, glSide bool) bool {
				for o := range set {
					if glSide && same(k, o) || !glSide && same(o, k) {
						return true
					}
				}
				return false
			}
			for k := range want {
				if !has(got, k, true) {
					t.Errorf("text %d: gitleaks found %s (%d bytes), we did not", texts, k.rule, len(k.secret))
				}
			}
			for k := range got {
				if !has(want, k, false) && !gitleaksPathRule(k.rule) {
					t.Errorf("text %d: we found %s (%d bytes), gitleaks did not", texts, k.rule, len(k.secret))
				}
			}
		}
	}
	t.Logf("%d texts, %d findings, identical to gitleaks", texts, found)
}
