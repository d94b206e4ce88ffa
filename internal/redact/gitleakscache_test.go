package redact

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

var updateGitleaksCache = flag.Bool("update-gitleaks-cache", false, "rerun gitleaks over the fixture corpus and rewrite "+gitleaksCacheFile)

// gitleaksCacheFile records what gitleaks finds in each fixture transcript.
// gitleaks needs about 11 s of CPU for the corpus and gives the same answer
// for the same version, configuration and bytes, so the comparison reads
// its findings from here while all three are unchanged, and runs gitleaks
// on a file otherwise. Findings are kept as positions, not secret text.
const gitleaksCacheFile = "testdata/gitleaks-fixture-findings.json"

// gitleaksCache is the on-disk form of gitleaksCacheFile.
type gitleaksCache struct {
	Gitleaks     string                        `json:"gitleaks"`
	ConfigSHA256 string                        `json:"config_sha256"`
	Files        map[string]gitleaksCacheFileV `json:"files"`
}

// gitleaksCacheFileV is one fixture's entry: its content hash and findings.
type gitleaksCacheFileV struct {
	SHA256   string               `json:"sha256"`
	Findings []gitleaksCachedFind `json:"findings"`
}

// gitleaksCachedFind is one finding: its rule and where its secret occurs.
type gitleaksCachedFind struct {
	Rule string `json:"rule"`
	At   int    `json:"at"`
	Len  int    `json:"len"`
}

// cachedGitleaks answers gitleaksFindings for fixture files from the cache
// when it is current, running gitleaks otherwise.
type cachedGitleaks struct {
	tb      testing.TB
	cache   gitleaksCache
	current bool // version and configuration match this build
	d       *detect.Detector
	live    int // files gitleaks ran on
}

func newCachedGitleaks(tb testing.TB) *cachedGitleaks {
	tb.Helper()
	c := &cachedGitleaks{tb: tb, cache: gitleaksCache{Gitleaks: gitleaksVersion(), ConfigSHA256: sha256Hex([]byte(defaultConfigTOML()))}}
	if !*updateGitleaksCache {
		var onDisk gitleaksCache
		if b, err := os.ReadFile(gitleaksCacheFile); err == nil && json.Unmarshal(b, &onDisk) == nil {
			c.current = onDisk.Gitleaks == c.cache.Gitleaks && onDisk.ConfigSHA256 == c.cache.ConfigSHA256 && c.cache.Gitleaks != ""
			if c.current {
				c.cache = onDisk
			}
		}
	}
	if c.cache.Files == nil {
		c.cache.Files = map[string]gitleaksCacheFileV{}
	}
	return c
}

// findings returns gitleaks' findings in the fixture file named name.
func (c *cachedGitleaks) findings(name string, data []byte) map[ruleSecret]bool {
	c.tb.Helper()
	sum := sha256Hex(data)
	if e, ok := c.cache.Files[name]; ok && c.current && e.SHA256 == sum {
		out := map[ruleSecret]bool{}
		for _, f := range e.Findings {
			if f.At < 0 || f.Len < 0 || f.At+f.Len > len(data) {
				c.tb.Fatalf("%s: cached finding %+v lies outside the file", gitleaksCacheFile, f)
			}
			out[ruleSecret{f.Rule, string(data[f.At : f.At+f.Len])}] = true
		}
		return out
	}
	if c.d == nil {
		c.d = newGitleaks(c.tb)
	}
	c.live++
	gl := gitleaksFindings(c.tb, c.d, data)
	e := gitleaksCacheFileV{SHA256: sum, Findings: []gitleaksCachedFind{}}
	for k := range gl {
		at := bytes.Index(data, []byte(k.secret))
		if at < 0 {
			c.tb.Fatalf("%s: gitleaks' %s secret does not occur in the file", name, k.rule)
		}
		e.Findings = append(e.Findings, gitleaksCachedFind{Rule: k.rule, At: at, Len: len(k.secret)})
	}
	sortCachedFinds(e.Findings)
	c.cache.Files[name] = e
	return gl
}

// save writes the cache when asked to.
func (c *cachedGitleaks) save() {
	c.tb.Helper()
	if !*updateGitleaksCache {
		if c.live > 0 {
			c.tb.Logf("gitleaks ran on %d fixture files the cache (%s) does not cover; -update-gitleaks-cache records them", c.live, gitleaksCacheFile)
		}
		return
	}
	b, err := json.MarshalIndent(c.cache, "", " ")
	if err != nil {
		c.tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(gitleaksCacheFile), 0o755); err != nil {
		c.tb.Fatal(err)
	}
	if err := os.WriteFile(gitleaksCacheFile, append(b, '\n'), 0o644); err != nil {
		c.tb.Fatal(err)
	}
}

func sortCachedFinds(fs []gitleaksCachedFind) {
	slices.SortFunc(fs, func(a, b gitleaksCachedFind) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Len, b.Len))
	})
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// gitleaksVersion is the gitleaks version go.mod requires (test binaries
// carry no module list), or "" when it cannot be read or is replaced.
func gitleaksVersion() string {
	b, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil || bytes.Contains(b, []byte("replace github.com/zricethezav/gitleaks")) {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/zricethezav/gitleaks/v8" {
			return f[1]
		}
	}
	return ""
}

// The cache answers only for the bytes it was made from: a changed file
// gets gitleaks' own findings, and those are recorded by position.
func TestGitleaksCacheFollowsContent(t *testing.T) {
	c := newCachedGitleaks(t)
	c.current = true
	data := []byte(`{"token":"` + plantedSecrets(1)[0].text + `"}` + "\n")
	c.cache.Files["x.jsonl"] = gitleaksCacheFileV{SHA256: sha256Hex([]byte("other bytes")), Findings: []gitleaksCachedFind{}}
	live := c.findings("x.jsonl", data)
	if len(live) == 0 || c.live != 1 {
		t.Fatalf("a changed file was answered from the cache: %d findings, %d live runs", len(live), c.live)
	}
	again := c.findings("x.jsonl", data)
	if c.live != 1 || len(again) != len(live) {
		t.Fatalf("the recorded findings were not used: %d live runs, %v vs %v", c.live, again, live)
	}
	for k := range live {
		if !again[k] {
			t.Fatalf("recorded finding %s lost its secret", k.rule)
		}
	}
}
