package explain

import (
	"context"
	"errors"
	"fmt"
	"github.com/entirecli/entire/internal/redact"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/lines"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// The kinds of author a blamed line has.
const (
	KindAgent   = "agent"
	KindHuman   = "human"
	KindMixed   = "mixed"
	KindUnknown = "unknown"
)

// BlameLine is one line of a file with who wrote it.
type BlameLine struct {
	// Line is the line's number in the blamed version (1-based).
	Line int `json:"line"`
	// Text is the line's content, without its newline.
	Text string `json:"text"`
	// Kind is KindAgent, KindHuman, KindMixed (the person rewrote an
	// agent's line) or KindUnknown (the commit's checkpoint records no
	// lines, or cannot be read).
	Kind string `json:"kind"`
	// The fields from Agent to Commit are always in the JSON form, empty
	// (or 0) where they do not apply, so that a reader finds every key.
	//
	// Agent and Model name the agent of an agent or mixed line.
	Agent string `json:"agent"`
	Model string `json:"model"`
	// SessionID and Turn (1-based within the session) say which turn
	// wrote it; Prompt is the first line of the turn's prompt.
	SessionID string `json:"session_id"`
	Turn      int    `json:"turn"`
	Prompt    string `json:"prompt"`
	// CheckpointID is the checkpoint that records it.
	CheckpointID string `json:"checkpoint_id"`
	// Commit is the commit git blame names ("" for a line not committed
	// yet); Author and Time are its author and author time.
	Commit string    `json:"commit"`
	Author string    `json:"author,omitempty"`
	Time   time.Time `json:"time,omitzero"`
	// Path is the file's path in Commit, OrigLine the line's number there.
	Path     string `json:"path,omitempty"`
	OrigLine int    `json:"orig_line,omitempty"`
	// TurnTime is when the turn's snapshot was taken.
	TurnTime time.Time `json:"turn_time,omitzero"`
	// Step is, for a line not committed yet, the shadow-branch commit of
	// the turn that wrote it (a rewind point).
	Step string `json:"step,omitempty"`
}

// Claim is what one session's record says of a line.
type Claim struct {
	SessionID, Agent, Model, Prompt, CheckpointID, Step string
	Turn                                                int // 0: the person
	Mixed                                               bool
	Time                                                time.Time
}

// better reports whether claim c beats o for the same line: a turn's claim
// beats the person's (another session's record sees that turn's lines as
// edits between its own turns), and of two turns the earlier wrote it.
func (c Claim) better(o Claim) bool {
	if (c.Turn > 0) != (o.Turn > 0) {
		return c.Turn > 0
	}
	return c.Turn > 0 && c.Time.Before(o.Time)
}

// Blamer answers who wrote each line of a file.
type Blamer struct {
	Repo  *gitrepo.Repo
	Store *checkpoint.Store
	// Fetch, when set, brings the checkpoints of ids that are not in the
	// repository (a fresh clone).
	Fetch func(ids []checkpoint.ID)
	// WorkTree, when set, returns for the work-tree text of path the
	// active sessions' claims on each of its lines (nil entries for the
	// lines none claims).
	WorkTree func(path, text string) []*Claim

	commits map[plumbing.Hash]*blameCommit
	records map[checkpoint.ID][]slotRecord
}

// blameCommit is what Blame knows of a commit git blame named.
type blameCommit struct {
	author string
	when   time.Time
	ids    []checkpoint.ID
	blobs  map[string]string // path → its blob hash in the commit
	texts  map[string]string // path → its text in the commit
	maps   map[string][]int  // path + "\x00" + slot key → line map
}

// slotRecord is one session slot's line record, with the slot's agent.
type slotRecord struct {
	id        checkpoint.ID
	sessionID string
	agent     string
	rec       *lines.Record // nil: the slot records no lines
}

// Blame returns who wrote lines from..to (1-based, inclusive; 0 for the
// whole file) of path (relative to the repository's root) in rev, or in
// the work tree when rev is "".
//
// It runs git blame, not go-git's (which walks every commit of the
// history with whole-file diffs: seconds where git takes milliseconds),
// incrementally: the checkpoints of each commit git names are read while
// git goes on.
func (b *Blamer) Blame(ctx context.Context, path, rev string, from, to int) ([]BlameLine, error) {
	if b.commits == nil {
		b.commits = map[plumbing.Hash]*blameCommit{}
		b.records = map[checkpoint.ID][]slotRecord{}
	}
	text, err := b.blamedText(ctx, path, rev)
	if err != nil {
		return nil, err
	}
	all := splitText(text)
	if from > 0 {
		to = max(from, to)
		if from > len(all) || to > len(all) {
			return nil, fmt.Errorf("%s has only %d lines", path, len(all))
		}
	}
	args := []string{"blame", "--incremental"}
	if from > 0 {
		args = append(args, "-L", fmt.Sprintf("%d,%d", from, to))
	}
	if rev != "" {
		args = append(args, rev)
	}
	args = append(args, "--", path)
	commits := make(chan plumbing.Hash, 1024)
	prefetched := make(chan struct{})
	go func() {
		defer close(prefetched)
		for h := range commits {
			for _, id := range b.commit(h).ids {
				b.slots(id)
			}
		}
	}()
	inc := &incremental{lines: map[int]BlameLine{}, seen: map[string]bool{}, maxLine: len(all)}
	inc.onCommit = func(sha string) {
		if strings.Trim(sha, "0") != "" {
			commits <- plumbing.NewHash(sha)
		}
	}
	err = b.Repo.Runner().RunLines(ctx, inc.line, args...)
	close(commits)
	<-prefetched
	if err != nil && rev == "" && strings.Contains(err.Error(), "no such path") {
		// Not in HEAD: every line of the work-tree file is uncommitted.
		inc.lines, err = map[int]BlameLine{}, nil
	}
	if err != nil {
		return nil, err
	}
	if from == 0 {
		from, to = 1, len(all)
	}
	bl := make([]BlameLine, 0, to-from+1)
	for n := from; n <= to; n++ {
		l, ok := inc.lines[n]
		if !ok {
			l = BlameLine{Line: n}
		}
		l.Text = all[n-1]
		bl = append(bl, l)
	}
	var absent []checkpoint.ID
	for i := range bl {
		if bl[i].Commit == "" {
			continue
		}
		c := b.commit(plumbing.NewHash(bl[i].Commit))
		bl[i].Author, bl[i].Time = c.author, c.when
		for _, id := range c.ids {
			if _, seen := b.records[id]; !seen && b.slots(id) == nil {
				absent = append(absent, id)
			}
		}
	}
	if len(absent) > 0 && b.Fetch != nil {
		b.Fetch(absent)
		for _, id := range absent {
			delete(b.records, id)
		}
	}
	var work []*Claim
	for i := range bl {
		l := &bl[i]
		if l.Path == "" {
			l.Path = path
		}
		if l.Commit == "" {
			if work == nil && b.WorkTree != nil {
				work = b.WorkTree(path, workText(b.Repo, path))
			}
			l.Kind = KindHuman
			if l.Line-1 < len(work) && work[l.Line-1] != nil {
				applyClaim(l, *work[l.Line-1])
			}
			continue
		}
		b.attribute(l)
	}
	return bl, nil
}

// workText reads a work-tree file for the active sessions' claims.
func workText(repo *gitrepo.Repo, path string) string {
	b, err := readWorkFile(repo, path)
	if err != nil {
		return ""
	}
	return string(b)
}

// attribute fills a committed line's author from the records of the
// checkpoints its commit carries.
func (b *Blamer) attribute(l *BlameLine) {
	c := b.commit(plumbing.NewHash(l.Commit))
	if len(c.ids) == 0 {
		l.Kind = KindHuman // committed outside any recorded session
		return
	}
	best, recorded := b.claim(c, l.Commit, l.Path, l.OrigLine)
	switch {
	case best != nil:
		applyClaim(l, *best)
	case recorded:
		l.Kind = KindHuman
		l.CheckpointID = c.ids[0].String()
	default:
		l.Kind = KindUnknown
		l.CheckpointID = c.ids[0].String()
	}
}

// claim returns the best claim the records of c's checkpoints make on
// line n of path in commit (nil when none does), and whether any of them
// records lines at all.
func (b *Blamer) claim(c *blameCommit, commit, path string, n int) (*Claim, bool) {
	var best *Claim
	recorded := false
	for _, id := range c.ids {
		for _, sr := range b.slots(id) {
			if sr.rec == nil {
				continue
			}
			f, ok := sr.rec.Files[path]
			if !ok {
				// The session did not touch the file, unless the
				// record names it redacted (a secret in its path).
				recorded = recorded || !redactedPaths(sr.rec)
				continue
			}
			recorded = true
			m, ok := b.mapLine(c, commit, sr, f, path, n)
			if !ok {
				continue
			}
			rg, ok := f.Lookup(m)
			if !ok {
				continue
			}
			cl := Claim{SessionID: sr.sessionID, Agent: sr.agent, Model: sr.rec.Model, CheckpointID: id.String(), Turn: rg.Turn, Mixed: rg.Mixed}
			if t, ok := sr.rec.TurnOf(rg.Turn); ok {
				cl.Prompt, cl.Time = t.Prompt, t.Time
			}
			if best == nil || cl.better(*best) {
				best = &cl
			}
		}
	}
	return best, recorded
}

// applyClaim sets a line's author from a claim.
func applyClaim(l *BlameLine, c Claim) {
	l.CheckpointID, l.SessionID = c.CheckpointID, c.SessionID
	if c.Turn == 0 {
		l.Kind = KindHuman
		return
	}
	l.Kind = KindAgent
	if c.Mixed {
		l.Kind = KindMixed
	}
	l.Agent, l.Model, l.Turn, l.Prompt, l.TurnTime, l.Step = c.Agent, c.Model, c.Turn, c.Prompt, c.Time, c.Step
}

// mapLine returns the line of the record's file that line n of path in
// commit is: the same when the commit holds the recorded blob, else
// mapped through the record's fingerprint (a rebased, amended or squashed
// commit).
func (b *Blamer) mapLine(c *blameCommit, commit string, sr slotRecord, f lines.FileLines, path string, n int) (int, bool) {
	if b.blobAt(c, commit, path) == f.Blob {
		return n, true
	}
	key := path + "\x00" + sr.id.String() + "\x00" + sr.sessionID
	m, ok := c.maps[key]
	if !ok {
		m = f.MapLinesFrom(b.textAt(c, path))
		c.maps[key] = m
	}
	if n < 1 || n > len(m) || m[n-1] == 0 {
		return 0, false
	}
	return m[n-1], true
}

// blobAt returns the blob hash of path in commit ("" when absent).
func (b *Blamer) blobAt(c *blameCommit, commit, path string) string {
	if h, ok := c.blobs[path]; ok {
		return h
	}
	h := ""
	if t, err := b.Repo.CommitTree(plumbing.NewHash(commit)); err == nil && t != nil {
		if e := checkpoint.TreeEntry(t, path); e.Exists() {
			h = e.Hash.String()
		}
	}
	c.blobs[path] = h
	return h
}

// textAt returns the text of path in c (blobAt first), read once.
func (b *Blamer) textAt(c *blameCommit, path string) string {
	if t, ok := c.texts[path]; ok {
		return t
	}
	text := ""
	if h := c.blobs[path]; h != "" {
		if data, err := b.Repo.ReadBlob(plumbing.NewHash(h)); err == nil {
			text = string(data)
		}
	}
	c.texts[path] = text
	return text
}

// commit reads what Blame needs of a commit, once.
func (b *Blamer) commit(h plumbing.Hash) *blameCommit {
	if c, ok := b.commits[h]; ok {
		return c
	}
	c := &blameCommit{blobs: map[string]string{}, texts: map[string]string{}, maps: map[string][]int{}}
	if co, err := b.Repo.Git.CommitObject(h); err == nil {
		c.author, c.when = co.Author.Name, co.Author.When
		c.ids = checkpoint.CheckpointsOf(co.Message)
	}
	b.commits[h] = c
	return c
}

// maxLineRecord bounds the line record read from a slot.
const maxLineRecord = 64 << 20

// slots returns the line records of checkpoint id's sessions, read once;
// nil when the checkpoint is not in the repository. The records name
// their session and agent; a slot whose record does not (or that has none)
// is read whole.
func (b *Blamer) slots(id checkpoint.ID) []slotRecord {
	if s, ok := b.records[id]; ok {
		return s
	}
	files, err := b.Store.SlotFiles(id, lines.File, maxLineRecord)
	if errors.Is(err, checkpoint.ErrNotFound) {
		b.records[id] = nil
		return nil
	}
	out := []slotRecord{}
	complete := err == nil
	for _, data := range files {
		sr := slotRecord{id: id}
		if data != nil {
			sr.rec, _ = lines.Parse(data)
		}
		if sr.rec == nil || sr.rec.SessionID == "" {
			complete = false
			break
		}
		sr.sessionID, sr.agent = sr.rec.SessionID, sr.rec.Agent
		out = append(out, sr)
	}
	if !complete {
		out = []slotRecord{}
		if cp, err := b.Store.Read(id); err == nil {
			for _, sess := range cp.Sessions {
				sr := slotRecord{id: id, sessionID: sess.Metadata.SessionID, agent: string(sess.Metadata.Agent)}
				if data, err := sess.File(lines.File); err == nil {
					sr.rec, _ = lines.Parse(data)
				}
				out = append(out, sr)
			}
		}
	}
	b.records[id] = out
	return out
}

// incremental reads `git blame --incremental`: per run of lines, a header
// (commit, original line, final line, count), the commit's details the
// first time it appears, and a "filename" line that ends the run.
type incremental struct {
	lines    map[int]BlameLine // by final line
	maxLine  int               // the blamed text's line count
	seen     map[string]bool   // commits named so far
	onCommit func(sha string)  // told of each commit once
	cur      *BlameLine
	count    int
}

// line reads one line of git blame's output.
func (r *incremental) line(b []byte) error {
	s := string(b)
	if r.cur == nil {
		f := strings.Fields(s)
		if len(f) != 4 || len(f[0]) != 40 {
			return fmt.Errorf("git blame: unexpected line %q", s)
		}
		orig, err1 := strconv.Atoi(f[1])
		final, err2 := strconv.Atoi(f[2])
		count, err3 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || err3 != nil || orig < 1 || final < 1 || count < 1 || final+count-1 > r.maxLine {
			return fmt.Errorf("git blame: unexpected line %q", s)
		}
		r.cur, r.count = &BlameLine{Commit: f[0], OrigLine: orig, Line: final}, count
		if !r.seen[f[0]] {
			r.seen[f[0]] = true
			if r.onCommit != nil {
				r.onCommit(f[0])
			}
		}
		return nil
	}
	name, ok := strings.CutPrefix(s, "filename ")
	if !ok {
		return nil // author, summary, previous, boundary...
	}
	commit := r.cur.Commit
	if strings.Trim(commit, "0") == "" {
		commit = ""
	}
	for k := 0; k < r.count; k++ {
		r.lines[r.cur.Line+k] = BlameLine{Commit: commit, OrigLine: r.cur.OrigLine + k, Line: r.cur.Line + k, Path: unquoteC(name)}
	}
	r.cur = nil
	return nil
}

// unquoteC undoes git's C-style quoting of a path ("a\tb"), leaving a path
// git did not quote as it is.
func unquoteC(p string) string {
	if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
		return p
	}
	if u, err := strconv.Unquote(p); err == nil {
		return u
	}
	return p
}

// blamedText returns the text git blames: the work-tree file, or the file
// at rev.
func (b *Blamer) blamedText(ctx context.Context, path, rev string) (string, error) {
	if rev == "" {
		data, err := readWorkFile(b.Repo, path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return string(data), nil
	}
	out, err := b.Repo.RunGit(ctx, "cat-file", "blob", rev+":"+path)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// splitText splits a file's text into its lines.
func splitText(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// readWorkFile reads a work-tree file, not through a symbolic link.
func readWorkFile(repo *gitrepo.Repo, path string) ([]byte, error) {
	f, err := gitrepo.OpenNoFollow(filepath.Join(repo.Root, filepath.FromSlash(path)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 256<<20))
}

// RenderBlame writes blamed lines as a table: the commit, who wrote the
// line, the session and turn, the checkpoint, the turn's prompt, the
// line's number and its text. Nothing is escaped: the caller escapes.
func RenderBlame(w io.Writer, ls []BlameLine) {
	width := len(strconv.Itoa(len(ls)))
	if n := len(ls); n > 0 {
		width = len(strconv.Itoa(ls[n-1].Line))
	}
	for _, l := range ls {
		commit := "uncommitted"
		if l.Commit != "" {
			commit = l.Commit[:min(11, len(l.Commit))]
		}
		who := whoWrote(l)
		sess, turn := "", ""
		if l.SessionID != "" {
			sess = l.SessionID[:min(8, len(l.SessionID))]
		}
		if l.Turn > 0 {
			turn = "#" + strconv.Itoa(l.Turn)
		}
		prompt := l.Prompt
		if r := []rune(prompt); len(r) > 30 {
			prompt = string(r[:29]) + "…"
		}
		if prompt != "" {
			prompt = "“" + prompt + "”"
		}
		fmt.Fprintf(w, "%-11s %-24s %-8s %-4s %-12s %-32s %*d) %s\n", commit, trunc(who, 24), sess, turn, l.CheckpointID, prompt, width, l.Line, l.Text)
	}
}

// whoWrote names the author of a blamed line.
func whoWrote(l BlameLine) string {
	agentName := l.Agent
	if agentName == "" {
		agentName = "agent"
	}
	if l.Model != "" {
		agentName += " (" + l.Model + ")"
	}
	switch l.Kind {
	case KindAgent:
		return agentName
	case KindMixed:
		return "person + " + agentName
	case KindHuman:
		if l.Author != "" {
			return "person: " + l.Author
		}
		return "person"
	}
	return "unknown"
}

// trunc shortens s to n runes.
func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// redactedPaths reports whether a record names a path it redacted.
func redactedPaths(rec *lines.Record) bool {
	for p := range rec.Files {
		if strings.Contains(p, redact.Replacement) {
			return true
		}
	}
	return false
}
