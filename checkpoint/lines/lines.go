// Package lines is the per-line attribution of a session's work in a
// commit: for every committed file the session's checkpoint covers, the
// ranges of lines each turn of the session wrote and the ranges the person
// wrote (between turns and after the last one), as `git blame` would tell
// if every turn and every edit between turns had been a commit.
//
// A condensation writes it as File in the session's slot; entire blame
// and entire why read it back. The chain of versions a file went through
// (the session's base, the person's edits before each turn, each turn's
// snapshot, the commit) is given to Attribute, which follows each line
// through line diffs and returns who added the lines of the last version.
package lines

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// File is the name of the record in a session slot.
const File = "lines.json"

// Version is the record's format version.
const Version = 1

// Person is the owner of the lines the person wrote; turns are numbered
// from 1.
const Person = 0

// carried marks a line that an earlier commit wrote: the chain's base had
// it and nothing in the chain changed it.
const carried = -1

// Record is the per-line attribution of one session's work in one commit.
type Record struct {
	// Version is the format version (1).
	Version int `json:"version"`
	// Commit is the commit condensed.
	Commit string `json:"commit"`
	// SessionID and Agent say whose record it is, as the slot's metadata
	// does (readers of many records need not read the metadata too).
	SessionID string `json:"session_id,omitempty"`
	Agent     string `json:"agent,omitempty"`
	// Model is the model the session's agent used last in the scope ("" when
	// the transcript does not say).
	Model string `json:"model,omitempty"`
	// Turns are the turns that wrote lines of the commit, by number.
	Turns []Turn `json:"turns,omitempty"`
	// Files are the committed files the record covers, by path.
	Files map[string]FileLines `json:"files,omitempty"`
}

// Turn is one turn of the session: its number within the session, when
// its snapshot was taken and the first line of its prompt (redacted).
type Turn struct {
	Turn   int       `json:"turn"`
	Time   time.Time `json:"time"`
	Prompt string    `json:"prompt,omitempty"`
	// Step is the shadow-branch commit of the turn's snapshot.
	Step string `json:"step,omitempty"`
	// Diffs are the turn's changes to the committed files, as unified
	// diffs (redacted; a file's diff over MaxDiff bytes is left out).
	Diffs map[string]string `json:"diffs,omitempty"`
}

// MaxDiff bounds the diff of one file in one turn that a record keeps.
const MaxDiff = 64 << 10

// FileLines is the attribution of one committed file.
type FileLines struct {
	// Blob is the file's blob in the commit: a reader holding another
	// version of the file (a rebased or squashed commit) maps its lines
	// through a diff from this one.
	Blob string `json:"blob"`
	// Lines is the file's line count in the commit.
	Lines int `json:"lines"`
	// Fingerprint holds a 32-bit FNV-1a hash of every line of the file in
	// the commit, base64 (unpadded): where the blob is not at hand (a fresh
	// clone of a rebased history), lines are mapped through it.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Ranges are the lines written in the commit's chain, ascending; the
	// lines no range holds were carried from the session's base.
	Ranges []Range `json:"ranges,omitempty"`
}

// Range is a run of lines [Start, End] (1-based, inclusive) one owner
// wrote: turn Turn of the session, or the person (Turn 0). Mixed marks
// lines the person rewrote over a turn's lines: Turn is that turn.
type Range struct {
	Start int  `json:"start"`
	End   int  `json:"end"`
	Turn  int  `json:"turn"`
	Mixed bool `json:"mixed,omitempty"`
}

// Owner is who added a line: a turn (≥1), the person (0) or nobody in the
// chain (the line was carried from its base).
type Owner struct {
	Turn  int
	Mixed bool
}

// Carried reports whether the line came from the chain's base.
func (o Owner) Carried() bool { return o.Turn == carried }

// Step is one version of a file in a chain: its text and who made the
// changes from the previous version.
type Step struct {
	Text  string
	Owner int
	// Diff, when set, is given the unified diff (UnifiedRuns) from the
	// previous version to this one, when both together hold less than
	// 4×MaxDiff bytes.
	Diff func(unified string)
}

// Attribute follows the lines of base through steps and returns the owner
// of every line of the last step's text (of base when there are none). A
// changed line belongs to the step that wrote it; when the person rewrites
// a turn's line in place (a replaced run, paired line by line), it is
// mixed.
func Attribute(base string, steps []Step) []Owner {
	owners := make([]Owner, countLines(base))
	for i := range owners {
		owners[i] = Owner{Turn: carried}
	}
	cur := base
	for _, s := range steps {
		if s.Text == cur {
			continue
		}
		runs := LineDiff(cur, s.Text)
		owners = advance(runs, countLines(s.Text), owners, s.Owner)
		if s.Diff != nil && len(cur)+len(s.Text) < 4*MaxDiff {
			s.Diff(UnifiedRuns(cur, s.Text, runs))
		}
		cur = s.Text
	}
	return owners
}

// advance maps the owners of a version's lines onto the next version's
// (of n lines) through the runs between them, giving the lines added to
// owner.
func advance(runs []Run, n int, owners []Owner, owner int) []Owner {
	out := make([]Owner, 0, n)
	i := 0 // next line of the previous version
	var deleted []Owner
	for _, d := range runs {
		switch d.Op {
		case Equal:
			out = append(out, owners[i:i+d.N]...)
			i += d.N
			deleted = nil
		case Delete:
			deleted = owners[i : i+d.N]
			i += d.N
		case Insert:
			for k := 0; k < d.N; k++ {
				o := Owner{Turn: owner}
				if owner == Person && k < len(deleted) && deleted[k].Turn > 0 {
					o = Owner{Turn: deleted[k].Turn, Mixed: true}
				}
				out = append(out, o)
			}
			deleted = nil
		}
	}
	return out
}

// Op is what a run of a line diff does.
type Op int

// The runs of a line diff.
const (
	Equal Op = iota
	Delete
	Insert
)

// Run is N lines a line diff keeps, deletes or inserts.
type Run struct {
	Op Op
	N  int
}

// LineDiff returns the line runs that turn a into b, deletions of a
// replaced run before its insertions.
func LineDiff(a, b string) []Run {
	if a == b {
		if n := countLines(a); n > 0 {
			return []Run{{Equal, n}}
		}
		return nil
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 2 * time.Second
	ca, cb, _ := dmp.DiffLinesToRunes(a, b)
	var runs []Run
	del, ins := 0, 0
	flush := func() {
		if del > 0 {
			runs = append(runs, Run{Delete, del})
		}
		if ins > 0 {
			runs = append(runs, Run{Insert, ins})
		}
		del, ins = 0, 0
	}
	for _, d := range dmp.DiffMainRunes(ca, cb, false) {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			del += n
		case diffmatchpatch.DiffInsert:
			ins += n
		default:
			flush()
			if k := len(runs); k > 0 && runs[k-1].Op == Equal {
				runs[k-1].N += n
			} else if n > 0 {
				runs = append(runs, Run{Equal, n})
			}
		}
	}
	flush()
	return runs
}

// MapLine returns the line of a (1-based) that line n of b is, when the
// diff from a to b keeps it; false when b added it.
func MapLine(a, b string, n int) (int, bool) {
	m := MapLines(a, b)
	if n < 1 || n > len(m) || m[n-1] == 0 {
		return 0, false
	}
	return m[n-1], true
}

// MapLines returns, for every line of b, the line of a it keeps (1-based;
// 0 for a line b added).
func MapLines(a, b string) []int {
	out := make([]int, 0, countLines(b))
	i := 0
	for _, d := range LineDiff(a, b) {
		switch d.Op {
		case Equal:
			for k := 0; k < d.N; k++ {
				out = append(out, i+k+1)
			}
			i += d.N
		case Delete:
			i += d.N
		case Insert:
			for k := 0; k < d.N; k++ {
				out = append(out, 0)
			}
		}
	}
	return out
}

// countLines counts the lines of s, a last line without a newline too.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// CountLines counts the lines of a file's text.
func CountLines(s string) int { return countLines(s) }

// Ranges folds owners into ranges, leaving out carried lines.
func Ranges(owners []Owner) []Range {
	var out []Range
	for i, o := range owners {
		if o.Carried() {
			continue
		}
		if k := len(out); k > 0 && out[k-1].End == i && out[k-1].Turn == o.Turn && out[k-1].Mixed == o.Mixed {
			out[k-1].End = i + 1
			continue
		}
		out = append(out, Range{Start: i + 1, End: i + 1, Turn: o.Turn, Mixed: o.Mixed})
	}
	return out
}

// Lookup returns the range holding line n, false when the line was
// carried from the base (or is out of the file).
func (f FileLines) Lookup(n int) (Range, bool) {
	i := sort.Search(len(f.Ranges), func(i int) bool { return f.Ranges[i].End >= n })
	if i < len(f.Ranges) && f.Ranges[i].Start <= n {
		return f.Ranges[i], true
	}
	return Range{}, false
}

// TurnOf returns the record's turn numbered n.
func (r *Record) TurnOf(n int) (Turn, bool) {
	for _, t := range r.Turns {
		if t.Turn == n {
			return t, true
		}
	}
	return Turn{}, false
}

// Marshal encodes the record.
func (r *Record) Marshal() ([]byte, error) {
	r.Version = Version
	return json.Marshal(r)
}

// Parse decodes a record, refusing a version it does not know and ranges
// out of order.
func Parse(b []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parse %s: %w", File, err)
	}
	if r.Version != Version {
		return nil, fmt.Errorf("parse %s: version %d is not known", File, r.Version)
	}
	for p, f := range r.Files {
		last := 0
		for _, rg := range f.Ranges {
			if rg.Start <= last || rg.End < rg.Start || rg.Turn < 0 {
				return nil, fmt.Errorf("parse %s: %s: ranges out of order", File, p)
			}
			last = rg.End
		}
	}
	return &r, nil
}

// Unified returns the diff from a to b in unified format with three lines
// of context (hunks only, no file header); "" when they are equal.
func Unified(a, b string) string { return UnifiedRuns(a, b, LineDiff(a, b)) }

// UnifiedRuns is Unified with the line runs from a to b already found.
func UnifiedRuns(a, b string, runs []Run) string {
	al, bl := splitLines(a), splitLines(b)
	var sb strings.Builder
	i, j := 0, 0
	for k := 0; k < len(runs); {
		if runs[k].Op == Equal {
			i += runs[k].N
			j += runs[k].N
			k++
			continue
		}
		// A hunk: changes separated by at most six equal lines.
		const ctx = 3
		hi, hj := max(0, i-ctx), max(0, j-ctx)
		var body []string
		for _, l := range al[hi:i] {
			body = append(body, " "+l)
		}
		ei, ej := i, j
		for k < len(runs) {
			r := runs[k]
			if r.Op == Equal {
				if r.N > 2*ctx || k == len(runs)-1 {
					break
				}
				for _, l := range al[ei : ei+r.N] {
					body = append(body, " "+l)
				}
				ei, ej = ei+r.N, ej+r.N
			} else if r.Op == Delete {
				for _, l := range al[ei : ei+r.N] {
					body = append(body, "-"+l)
				}
				ei += r.N
			} else {
				for _, l := range bl[ej : ej+r.N] {
					body = append(body, "+"+l)
				}
				ej += r.N
			}
			k++
		}
		tail := min(ctx, len(al)-ei)
		for _, l := range al[ei : ei+tail] {
			body = append(body, " "+l)
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", hi+1, ei+tail-hi, hj+1, ej+tail-hj)
		for _, l := range body {
			sb.WriteString(l)
			sb.WriteByte('\n')
		}
		i, j = ei, ej
	}
	return sb.String()
}

// splitLines splits text into lines without their newlines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Fingerprint returns the line hashes of text (see FileLines.Fingerprint).
func Fingerprint(text string) string {
	ls := splitLines(text)
	buf := make([]byte, 4*len(ls))
	for i, l := range ls {
		h := fnv.New32a()
		h.Write([]byte(l))
		binary.BigEndian.PutUint32(buf[4*i:], h.Sum32())
	}
	return base64.RawStdEncoding.EncodeToString(buf)
}

// fingerprintText returns a fingerprint as text with a line per hash, for
// a line diff; false when it is malformed.
func fingerprintText(fp string) (string, bool) {
	b, err := base64.RawStdEncoding.DecodeString(fp)
	if err != nil || len(b)%4 != 0 {
		return "", false
	}
	var sb strings.Builder
	for i := 0; i < len(b); i += 4 {
		fmt.Fprintf(&sb, "%08x\n", binary.BigEndian.Uint32(b[i:]))
	}
	return sb.String(), true
}

// MapLinesFrom returns, for every line of text, the line of the file the
// record holds (1-based; 0 for a line the record's version lacks),
// mapped by the record's fingerprint; nil when it has none.
func (f FileLines) MapLinesFrom(text string) []int {
	old, ok := fingerprintText(f.Fingerprint)
	if !ok || f.Fingerprint == "" {
		return nil
	}
	cur, _ := fingerprintText(Fingerprint(text))
	return MapLines(old, cur)
}

// Owners returns the owner of every line of the file the record holds
// (Carried for the lines no range holds).
func (f FileLines) Owners() []Owner {
	out := make([]Owner, f.Lines)
	for i := range out {
		out[i] = Owner{Turn: carried}
	}
	for _, r := range f.Ranges {
		for n := r.Start; n <= r.End && n <= f.Lines; n++ {
			out[n-1] = Owner{Turn: r.Turn, Mixed: r.Mixed}
		}
	}
	return out
}

// MergeOlder completes r, the record of a commit that replaced an earlier
// one of the same checkpoint (an amend), with older's record of it: a line
// r says was carried from its base and older says was written takes
// older's owner. text returns a file's text in r's commit.
func (r *Record) MergeOlder(older *Record, text func(path string) (string, bool)) {
	if r.Files == nil {
		r.Files = map[string]FileLines{}
	}
	for p, of := range older.Files {
		t, ok := text(p)
		if !ok {
			continue
		}
		nf, has := r.Files[p]
		if !has {
			nf = FileLines{Lines: countLines(t), Fingerprint: Fingerprint(t)}
		}
		owners := nf.Owners()
		var m []int
		if has && nf.Blob == of.Blob && nf.Blob != "" {
			m = make([]int, len(owners))
			for i := range m {
				m[i] = i + 1
			}
		} else {
			m = of.MapLinesFrom(t)
		}
		for i := range owners {
			if !owners[i].Carried() || i >= len(m) || m[i] == 0 {
				continue
			}
			if rg, ok := of.Lookup(m[i]); ok {
				owners[i] = Owner{Turn: rg.Turn, Mixed: rg.Mixed}
			}
		}
		nf.Ranges = Ranges(owners)
		r.Files[p] = nf
	}
	have := map[int]bool{}
	for _, t := range r.Turns {
		have[t.Turn] = true
	}
	for _, t := range older.Turns {
		if !have[t.Turn] {
			r.Turns = append(r.Turns, t)
		}
	}
	sort.Slice(r.Turns, func(i, j int) bool { return r.Turns[i].Turn < r.Turns[j].Turn })
}
