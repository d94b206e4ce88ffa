package redact

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
)

// matcher is the part of a compiled regular expression the engine uses. Both
// the standard library and the RE2 build of gitleaks' regexp package satisfy
// it.
type matcher interface {
	FindAllStringSubmatchIndex(s string, n int) [][]int
	NumSubexp() int
	String() string
}

// rule is one compiled detector of the keyword-prefiltered matcher.
type rule struct {
	id          string
	re          matcher
	secretGroup int
	entropy     float64
	keywords    []string // lowercase; empty means "always run"
	allowlists  []*config.Allowlist
	generic     bool      // rule ID contains "generic": yields to specific rules
	plan        *rulePlan // how the expression runs (plan.go)
	// lazy is re when it is a rule of a configuration (nil for this
	// package's own rules): its source tells the characters a secret found
	// is extended over (boundary.go).
	lazy *lazyRegexp
}

// ruleSet is the immutable compiled form of a gitleaks configuration.
type ruleSet struct {
	rules  []rule
	global []*config.Allowlist
	// allow runs the allowlists' expressions by their plans (allow.go).
	allow map[*config.Allowlist]*allowRegexes
}

// The default rule set is compiled once per process and never changed after
// that; it is a read-only table, not mutable state.
var (
	defaultOnce  sync.Once
	defaultRules *ruleSet
	defaultErr   error
)

// loadDefaultRules returns the compiled gitleaks default configuration.
func loadDefaultRules() (*ruleSet, error) {
	defaultOnce.Do(func() {
		defaultRules, defaultErr = compileGitleaksConfig(defaultConfigTOML(), defaultPlanTable.forConfig(defaultConfigTOML()))
	})
	return defaultRules, defaultErr
}

// defaultConfigTOML returns gitleaks' embedded default configuration.
func defaultConfigTOML() string { return config.DefaultConfig }

// compileGitleaksConfig parses a gitleaks TOML configuration and compiles
// its rules in their file order. It decodes the TOML directly (go-toml,
// whose case-insensitive keys give the structure viper would): going
// through viper and mapstructure cost several milliseconds at every start
// of a hook process, and gitleaks' own helpers use viper's global instance.
//
// known, when not nil, holds the plan literals and group counts of the
// configuration's rules worked out in advance (see defaultPlanTable); the
// rules' plans are then derived only when a rule first runs.
func compileGitleaksConfig(text string, known *planTable) (*ruleSet, error) {
	vc, err := decodeGitleaksConfig(text)
	if err != nil {
		return nil, err
	}
	ruleParts, globalParts := takeAllowlistParts(&vc)
	sources := takeRegexes(&vc)
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("translate gitleaks config: %w", err)
	}
	deferred := map[*config.Allowlist][]string{}
	for id, r := range cfg.Rules {
		ruleParts[id].restore(r.Allowlists, deferred)
	}
	globalParts.restore(cfg.Allowlists, deferred)
	rs := &ruleSet{global: cfg.Allowlists}
	for _, r := range cfg.GetOrderedRules() {
		rsrc, ok := sources[r.RuleID]
		src := rsrc.src
		if !ok || r.SkipReport {
			// Path-only rules never match content; skip-report rules
			// exist only as parts of composite rules.
			continue
		}
		var re *lazyRegexp
		var pl *rulePlan
		if e, ok := known.lookup(len(rs.rules), r.RuleID); ok {
			re = &lazyRegexp{raw: src, relax: true, nsub: e.nsub}
			pl = lazyPlan(e.lits)
		} else {
			if re, err = newLazyRegexp(src); err != nil {
				return nil, fmt.Errorf("rule %s: %w", r.RuleID, err)
			}
			re.relax = true
			pl = eagerPlan(re)
		}
		if r.SecretGroup > re.NumSubexp() {
			return nil, fmt.Errorf("rule %s: secret group %d, but the expression has %d groups", r.RuleID, r.SecretGroup, re.NumSubexp())
		}
		kws := make([]string, 0, len(r.Keywords))
		for _, k := range r.Keywords {
			if k = strings.ToLower(k); k != "" {
				kws = append(kws, k)
			}
		}
		rs.rules = append(rs.rules, rule{
			plan:        pl,
			id:          r.RuleID,
			re:          re,
			secretGroup: r.SecretGroup,
			entropy:     r.Entropy,
			keywords:    kws,
			allowlists:  r.Allowlists,
			generic:     strings.Contains(strings.ToLower(r.RuleID), "generic"),
			lazy:        re,
		})
	}
	extra, err := extraRules()
	if err != nil {
		return nil, err
	}
	for i := range extra {
		extra[i].plan = eagerPlan(extra[i].re)
	}
	rs.rules = append(rs.rules, extra...)
	rs.allow = map[*config.Allowlist]*allowRegexes{}
	addAllowlists(rs.allow, rs.global, deferred)
	for _, ru := range rs.rules {
		addAllowlists(rs.allow, ru.allowlists, deferred)
	}
	return rs, nil
}

// neverPath stands in for a content rule's expression while gitleaks
// translates the configuration (a rule needs an expression or a path):
// paths never apply to transcript text.
const neverPath = `\A\z.`

// ruleSource is a rule's content expression as configured; a lazyRegexp
// rewrites its boundaries (relaxTrailingBoundary) when the rule first
// runs: parsing 220 expressions cost every hook process 6% of its time.
type ruleSource struct {
	src string
}

// takeRegexes removes the content expressions from a configuration before
// it is translated, and returns them by rule ID: gitleaks compiles every
// one of them up front (10 ms at every start of a hook process), while a
// lazyRegexp compiles only the rules whose keywords a text ever hits.
func takeRegexes(vc *config.ViperConfig) map[string]ruleSource {
	out := map[string]ruleSource{}
	for i := range vc.Rules {
		vr := &vc.Rules[i]
		if vr.Regex == "" {
			continue
		}
		out[vr.ID] = ruleSource{src: vr.Regex}
		vr.Regex = ""
		if vr.Path == "" {
			vr.Path = neverPath
		}
	}
	return out
}

// lazyRegexp is a rule's expression, compiled on first use; with relax,
// its boundary groups are rewritten (relaxTrailingBoundary) first, also
// on first use.
type lazyRegexp struct {
	raw   string
	relax bool
	nsub  int

	srcOnce sync.Once
	src     string
	extend  []rune

	reOnce sync.Once
	re     *regexp.Regexp
}

// newLazyRegexp checks src's syntax (as regexp.Compile parses it) without
// compiling it.
func newLazyRegexp(src string) (*lazyRegexp, error) {
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return &lazyRegexp{raw: src, nsub: tree.MaxCap()}, nil
}

// source returns the expression as it runs, and the characters a secret
// it finds is extended over (nil: none).
func (l *lazyRegexp) source() (string, []rune) {
	l.srcOnce.Do(func() {
		l.src = l.raw
		if l.relax {
			l.src, l.extend = relaxTrailingBoundary(l.raw)
		}
	})
	return l.src, l.extend
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.reOnce.Do(func() {
		src, _ := l.source()
		l.re = regexp.MustCompile(src)
	})
	return l.re
}

// FindAllStringSubmatchIndex is the compiled expression's.
func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}

// NumSubexp is the number of capture groups, known without compiling.
func (l *lazyRegexp) NumSubexp() int { return l.nsub }

// String returns the expression's source as it runs.
func (l *lazyRegexp) String() string {
	src, _ := l.source()
	return src
}

// decodeGitleaksConfig decodes a gitleaks TOML configuration.
func decodeGitleaksConfig(text string) (config.ViperConfig, error) {
	var vc config.ViperConfig
	if err := toml.Unmarshal([]byte(text), &vc); err != nil {
		return vc, fmt.Errorf("read gitleaks config: %w", err)
	}
	return vc, nil
}

// allowParts are parts of allowlists taken out of a configuration before
// it is translated, by allowlist in translation order.
type allowParts struct {
	stops   [][]string // stopwords, given back lowered after translation
	regexes [][]string // expressions, compiled on first use (allow.go)
}

// take moves one allowlist's stopwords and expressions into p. An
// allowlist that had expressions keeps one that never matches, so that it
// still validates and still counts as having expressions.
func (p *allowParts) take(stops, regexes *[]string) {
	p.stops = append(p.stops, *stops)
	*stops = nil
	p.regexes = append(p.regexes, *regexes)
	if len(*regexes) > 0 {
		*regexes = []string{neverPath}
	}
}

// restore gives the translated allowlists, in the order their parts were
// taken, their lowered stopwords back, and records their expressions'
// sources in deferred.
func (p *allowParts) restore(lists []*config.Allowlist, deferred map[*config.Allowlist][]string) {
	for j, a := range lists {
		if p == nil || j >= len(p.stops) {
			return // appended by translation (targeted global allowlists)
		}
		a.StopWords = lowerUnique(p.stops[j])
		if len(p.regexes[j]) > 0 {
			deferred[a] = p.regexes[j]
		}
	}
}

// takeAllowlistParts removes the stopwords and expressions of a
// configuration's allowlists before it is translated, per rule ID and
// global, in the order Translate builds the allowlists (a rule's deprecated
// single allowlist, else its list; the same for the global ones). Translate
// would otherwise build an Aho-Corasick trie of the generic rule's ~1,500
// stopwords (over 100 ms of CPU on the hook path; with the trie absent,
// Allowlist.ContainsStopWord searches StopWords directly, which costs
// microseconds, and only for a finding being checked), and compile every
// expression (about 3 ms), while most allowlists never see a candidate.
// Global allowlists with target rules keep theirs.
func takeAllowlistParts(vc *config.ViperConfig) (rules map[string]*allowParts, global *allowParts) {
	rules = map[string]*allowParts{}
	global = &allowParts{}
	for i := range vc.Rules {
		vr := &vc.Rules[i]
		p := &allowParts{}
		rules[vr.ID] = p
		if vr.AllowList != nil && len(vr.Allowlists) == 0 {
			p.take(&vr.AllowList.StopWords, &vr.AllowList.Regexes)
			continue
		}
		for _, a := range vr.Allowlists {
			p.take(&a.StopWords, &a.Regexes)
		}
	}
	if vc.AllowList != nil && len(vc.Allowlists) == 0 {
		global.take(&vc.AllowList.StopWords, &vc.AllowList.Regexes)
	}
	for _, a := range vc.Allowlists {
		if len(a.TargetRules) == 0 {
			global.take(&a.StopWords, &a.Regexes)
		}
	}
	return rules, global
}

// lowerUnique returns the stopwords lower-cased and without duplicates,
// as gitleaks' own validation leaves them.
func lowerUnique(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(words))
	out := make([]string, 0, len(words))
	for _, w := range words {
		if w = strings.ToLower(w); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// uriCredentialsRuleID names the built-in rule for passwords in URLs, which
// the gitleaks default set lacks (postgres://user:pass@host and the like).
const uriCredentialsRuleID = "uri-credentials"

// passwordAssignmentRuleID names the built-in rule for password and key
// assignments whose value holds characters gitleaks' generic rule does not
// accept (password=hunter2!#...). Values that read as code (identifiers,
// member paths, ${VAR} references) are left alone.
const passwordAssignmentRuleID = "password-assignment"

// extraRules returns the built-in rules that complement gitleaks'.
func extraRules() ([]rule, error) {
	allow := &config.Allowlist{
		Description: "placeholders",
		Regexes: []*glregexp.Regexp{glregexp.MustCompile(
			`(?i)^(?:\$\{?[\w.-]+\}?|\$\(.*\)|%[\w]+%|\*+|x+|\.+|pass(?:word)?|secret|changeme|redacted)$`)},
	}
	if err := allow.Validate(); err != nil {
		return nil, fmt.Errorf("built-in allowlist: %w", err)
	}
	assign := &config.Allowlist{
		Description: "code rather than values",
		Regexes: []*glregexp.Regexp{glregexp.MustCompile(
			`^(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\$\{?[\w.-]+\}?|\*+|x+|REDACTED)$`)},
	}
	if err := assign.Validate(); err != nil {
		return nil, fmt.Errorf("built-in allowlist: %w", err)
	}
	return []rule{{
		id: passwordAssignmentRuleID,
		re: glregexp.MustCompile(
			`(?i)(?:passw(?:or)?d|\bpwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token)["']?[ \t]{0,5}(?:=|:=|:)[ \t]{0,5}["']?([^\s"'\x60;,()\[\]{}<>\\]{8,200})`),
		entropy:    3.0,
		keywords:   []string{"passwd", "password", "pwd", "secret", "api_key", "api-key", "apikey", "access_key", "access-key", "accesskey", "auth_token", "auth-token", "authtoken", "access_token", "access-token", "accesstoken"},
		allowlists: []*config.Allowlist{assign},
	}, {
		id: uriCredentialsRuleID,
		re: glregexp.MustCompile(
			`(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@'"\x60<>\\]{1,100}:([^\s/?#@'"\x60<>\\]{1,200})@`),
		keywords:   []string{"://"},
		allowlists: []*config.Allowlist{allow},
	}}, nil
}

// allowTargets are the texts an allowlist can test for one match at
// [ms,me): the secret, the match and, through lines, the line(s) holding
// the match.
type allowTargets struct {
	secret, match string
	ms, me        int
	lines         *lineCache
}

// allowedBy reports whether a gitleaks allowlist drops a finding. target
// selection follows gitleaks: the secret by default, the whole match or the
// whole line when the allowlist says so. Commit and path conditions can never
// hold for transcript text, so an AND allowlist that has them never allows.
func allowedBy(lists []*config.Allowlist, res map[*config.Allowlist]*allowRegexes, t allowTargets) bool {
	for _, a := range lists {
		and := a.MatchCondition == config.AllowlistMatchAnd
		if and && (len(a.Commits) > 0 || len(a.Paths) > 0) {
			continue
		}
		regexOK := false
		if len(a.Regexes) > 0 {
			switch a.RegexTarget {
			case "match":
				regexOK = regexAllowed(a, res, t.match)
			case "line":
				regexOK = t.lines.allowed(a, res, t.ms, t.me)
			default:
				regexOK = regexAllowed(a, res, t.secret)
			}
		}
		stopOK := false
		if len(a.StopWords) > 0 {
			stopOK, _ = a.ContainsStopWord(t.secret)
		}
		if and {
			if len(a.Regexes) > 0 && !regexOK {
				continue
			}
			if len(a.StopWords) > 0 && !stopOK {
				continue
			}
			if len(a.Regexes) == 0 && len(a.StopWords) == 0 {
				continue
			}
			return true
		}
		if regexOK || stopOK {
			return true
		}
	}
	return false
}

// regexAllowed reports whether one of the allowlist's expressions matches
// target, by their match plans when res holds them.
func regexAllowed(a *config.Allowlist, res map[*config.Allowlist]*allowRegexes, target string) bool {
	if ar := res[a]; ar != nil {
		return ar.matches(target)
	}
	return a.RegexAllowed(target)
}
