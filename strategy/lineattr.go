package strategy

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/lines"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/panics"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Per-line attribution (checkpoint/lines). A turn start keeps the person's
// edited files as blobs (keepUserVersion); a condensation replays, for
// each committed file the session touched, the versions it went through
// from the session's base: the person's versions at each turn start, each
// step of the shadow branch (the session's own as its turns, the other
// sessions' as nobody's: their records claim them), and the commit
// (lineRecord). Only those files are read, each version once.

// maxChainSteps bounds the shadow-branch steps a condensation replays.
const maxChainSteps = 2000

// keepUserVersion stores the text of an edited file as a turn start found
// it (exists false: deleted) in pa.UserBlobs. A blob that cannot be
// written is left out: the lines count as the turn's that follows.
func (m *ManualCommit) keepUserVersion(pa *session.PromptAttribution, path, text string, exists bool) {
	h := ""
	if exists {
		b, err := m.env.Repo.WriteBlobString(text)
		if err != nil {
			m.env.Log.Warn("line attribution: keep the person's version", "path", path, "error", err)
			return
		}
		h = b.String()
	}
	if pa.UserBlobs == nil {
		pa.UserBlobs = map[string]string{}
	}
	pa.UserBlobs[path] = h
}

// chainEvent is one version in a file's chain: a step's tree, or the
// person's versions at a turn start.
type chainEvent struct {
	// treeHash is a step's tree (zero for the person's versions); tree is
	// read from it when a path is looked up.
	treeHash plumbing.Hash
	tree     *object.Tree
	// changed holds the paths where the tree differs from the previous
	// tree event's (the chain base's for the first): only those are looked
	// up.
	changed map[string]bool
	user    map[string]string
	owner   int
	turn    *lines.Turn
}

// lineRecord builds the per-line attribution of the session's work in
// commit: files are the committed files the session touched (changed
// between its attribution base and the commit), tip the shadow branch's
// tip, prompts every prompt of the session so far and before how many of
// them came before this scope. It returns nil when there is nothing to
// record.
func (m *ManualCommit) lineRecord(st *session.State, tip plumbing.Hash, commit *object.Commit, base *object.Tree, files []string, prompts []string, before int) *lines.Record {
	head, err := commit.Tree()
	if err != nil || len(files) == 0 {
		return nil
	}
	events := m.chainEvents(st, tip, base, prompts, before)
	rec := &lines.Record{Commit: commit.Hash.String(), SessionID: st.SessionID, Agent: st.AgentType, Files: map[string]lines.FileLines{}}
	used := map[int]bool{}
	for _, p := range files {
		fe := checkpoint.TreeEntry(head, p)
		if !fe.Exists() || !regularFile(fe.Mode) {
			continue
		}
		final, ok := m.blobAt(fe.Hash)
		if !ok {
			continue
		}
		start, ok := m.blobText(base, p)
		if !ok {
			continue
		}
		chain := m.fileChain(p, base, start, events, true)
		chain = append(chain, lines.Step{Text: final, Owner: lines.Person})
		owners := lines.Attribute(start, chain)
		ranges := dropOthers(lines.Ranges(owners))
		for _, r := range ranges {
			used[r.Turn] = true
		}
		rec.Files[p] = lines.FileLines{Blob: fe.Hash.String(), Lines: lines.CountLines(final), Fingerprint: lines.Fingerprint(final), Ranges: ranges}
	}
	for _, ev := range events {
		if ev.turn != nil && used[ev.turn.Turn] {
			t := *ev.turn
			for p := range t.Diffs {
				if _, ok := rec.Files[p]; !ok {
					delete(t.Diffs, p)
				}
			}
			rec.Turns = append(rec.Turns, t)
		}
	}
	if len(rec.Files) == 0 {
		return nil
	}
	return rec
}

// fileChain returns the versions path went through in events after its
// text start in base, with their owners; diffs asks for each turn's diff
// of the file to be kept in the turn. A tree event is looked up only where
// it changed the path.
func (m *ManualCommit) fileChain(p string, base *object.Tree, start string, events []chainEvent, diffs bool) []lines.Step {
	var chain []lines.Step
	treeHash := m.entryOf(base, p) // the path in the latest tree event
	prevHash := treeHash           // the path's latest version
	for i := range events {
		ev := &events[i]
		var h plumbing.Hash
		if !ev.treeHash.IsZero() {
			if ev.changed == nil || ev.changed[p] {
				treeHash = m.entryOf(m.eventTree(ev), p)
			}
			h = treeHash
		} else if v, ok := ev.user[p]; ok {
			h = plumbing.NewHash(v)
		} else {
			continue
		}
		if h == prevHash {
			continue
		}
		prevHash = h
		text, ok := m.blobAt(h)
		if !ok {
			continue
		}
		st := lines.Step{Text: text, Owner: ev.owner}
		if diffs && ev.turn != nil {
			turn, path := ev.turn, p
			st.Diff = func(unified string) {
				if unified != "" && len(unified) <= lines.MaxDiff {
					if turn.Diffs == nil {
						turn.Diffs = map[string]string{}
					}
					turn.Diffs[path] = m.env.Redactor.Text(unified)
				}
			}
		}
		chain = append(chain, st)
	}
	return chain
}

// otherSession is the chain owner of another session's steps: lines no
// range of this record holds.
const otherSession = -2

// dropOthers removes the ranges of other sessions' lines.
func dropOthers(rs []lines.Range) []lines.Range {
	out := rs[:0]
	for _, r := range rs {
		if r.Turn != otherSession {
			out = append(out, r)
		}
	}
	return out
}

// blobAt returns a blob's text; false for a binary or unreadable one, and
// "" for the zero hash (a deleted file).
func (m *ManualCommit) blobAt(h plumbing.Hash) (string, bool) {
	text, ok, err := m.readText(h)
	return text, ok && err == nil
}

// chainEvents returns the versions the session's files went through on
// the shadow branch ending at tip, oldest first: every step (this
// session's as its turns, numbered within the session by the prompts its
// metadata held, others' as otherSession), each of this session's counted
// steps preceded by the person's versions its turn start kept.
func (m *ManualCommit) chainEvents(st *session.State, tip plumbing.Hash, base *object.Tree, prompts []string, before int) []chainEvent {
	if tip.IsZero() {
		return nil
	}
	repo := m.env.Repo
	var steps []checkpoint.StepInfo
	var trees []plumbing.Hash
	for h := tip; !h.IsZero() && len(steps) < maxChainSteps; {
		c, err := repo.Git.CommitObject(h)
		if err != nil {
			break
		}
		info := checkpoint.ParseStep(c)
		if info.SessionID == "" {
			break // the base commit
		}
		steps, trees = append(steps, info), append(trees, c.TreeHash)
		if c.NumParents() == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	user := map[int]session.PromptAttribution{}
	for _, pa := range st.PromptAttributions {
		user[pa.CheckpointNumber] = pa
	}
	var events []chainEvent
	counted, turn := 0, before
	var pendingOthers []chainEvent
	var pendingTimes []int64
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		if s.SessionID != st.SessionID {
			pendingOthers = append(pendingOthers, chainEvent{treeHash: trees[i], owner: otherSession})
			pendingTimes = append(pendingTimes, s.When.Unix())
			continue
		}
		ownCounted := !s.IsTask && s.RewoundTo == ""
		if ownCounted {
			counted++
		}
		// The person's versions come before the other sessions' steps
		// taken after the turn start measured them.
		pa, hasUser := user[counted]
		hasUser = hasUser && ownCounted
		quiet := len(pendingOthers) == 0 // nothing but the person came between
		if hasUser && len(pa.UserBlobs) > 0 {
			k := len(pendingOthers)
			if !pa.MeasuredAt.IsZero() {
				for k > 0 && pendingTimes[k-1] > pa.MeasuredAt.Unix() {
					k--
				}
			}
			events = append(events, pendingOthers[:k]...)
			events = append(events, chainEvent{user: pa.UserBlobs, owner: lines.Person})
			events = append(events, pendingOthers[k:]...)
		} else {
			events = append(events, pendingOthers...)
		}
		pendingOthers, pendingTimes = nil, nil
		switch {
		case hasUser && pa.ScopePrompts > 0:
			turn = max(turn, before+pa.ScopePrompts)
		default:
			if n := len(readShadowPrompts(repo, s.Commit, st.SessionID)); n > 0 && before+n > turn {
				turn = before + n
			} else if ownCounted && turn == before {
				turn = before + 1
			}
		}
		turn = max(turn, 1)
		t := &lines.Turn{Turn: turn, Time: s.When.UTC(), Step: s.Commit.String()}
		if turn-1 < len(prompts) {
			t.Prompt = firstLine(prompts[turn-1])
		}
		ev := chainEvent{treeHash: trees[i], owner: turn, turn: t}
		if hasUser && quiet && pa.StepFiles != nil {
			// The step changed what its turn changed and what the
			// person's edits before it did: no tree comparison.
			ev.changed = map[string]bool{}
			for _, f := range pa.StepFiles {
				ev.changed[f] = true
			}
			for f := range pa.UserBlobs {
				ev.changed[f] = true
			}
		}
		events = append(events, ev)
	}
	events = append(events, pendingOthers...)
	if pa, ok := user[counted+1]; ok && len(pa.UserBlobs) > 0 {
		events = append(events, chainEvent{user: pa.UserBlobs, owner: lines.Person})
	}
	if p := st.PendingPromptAttribution; p != nil && len(p.UserBlobs) > 0 {
		events = append(events, chainEvent{user: p.UserBlobs, owner: lines.Person})
	}
	m.markChanged(events, base)
	return events
}

// eventTree returns a tree event's tree, read once (nil when it cannot be
// read: every path then looks absent).
func (m *ManualCommit) eventTree(ev *chainEvent) *object.Tree {
	if ev.tree == nil && !ev.treeHash.IsZero() {
		if t, ok := m.trees[ev.treeHash]; ok {
			ev.tree = t
		} else {
			ev.tree, _ = m.env.Repo.Git.TreeObject(ev.treeHash)
		}
	}
	return ev.tree
}

// markChanged sets the changed paths of each tree event that has none: a
// comparison of its tree with the previous tree event's (base's for the
// first), which skips the subtrees they share. On a failed comparison the
// event is left to be looked up path by path.
func (m *ManualCommit) markChanged(events []chainEvent, base *object.Tree) {
	var prev plumbing.Hash
	if base != nil {
		prev = base.Hash
	}
	for i := range events {
		ev := &events[i]
		if ev.treeHash.IsZero() {
			continue
		}
		if ev.changed == nil && !prev.IsZero() {
			set := map[string]bool{}
			if err := m.env.Repo.DiffTreePaths(prev, ev.treeHash, isProtected, set); err == nil {
				ev.changed = set
			}
		}
		prev = ev.treeHash
	}
}

// lineFileAsync computes lineFile while the condensation goes on (the
// line record reads the same objects as the attribution and the condensed
// transcript, which the other core can do meanwhile): it returns the
// channel the result (nil for none) arrives on. It works on a copy of the
// session's state and caches of its own; a panic gives no record.
func (m *ManualCommit) lineFileAsync(id checkpoint.ID, st *session.State, tip plumbing.Hash, commit *object.Commit, files, prompts []string, before int) <-chan map[string][]byte {
	out := make(chan map[string][]byte, 1)
	lm := &ManualCommit{env: m.env, resumeAfter: m.resumeAfter, prefetched: m.prefetched,
		texts: map[plumbing.Hash]cachedText{}, entries: map[treePath]plumbing.Hash{}, trees: map[plumbing.Hash]*object.Tree{}}
	stc := *st
	stc.PromptAttributions = slices.Clone(st.PromptAttributions)
	files, prompts = slices.Clone(files), slices.Clone(prompts)
	go func() {
		var res map[string][]byte
		var err error
		defer func() {
			var pe *panics.Error
			switch {
			case errors.As(err, &pe):
				if inner, ok := pe.Value.(*panics.Error); ok {
					pe = inner // from the other half (lineRecordShards)
				}
				m.env.Log.Error("line attribution: panic recovered", "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
			case err != nil:
				m.env.Log.Warn("line attribution failed", "error", err)
			}
			out <- res
		}()
		defer panics.Recover(&err)
		panics.Inject(m.env.Getenv, "line-record")
		if cc := lm.changesOf(&stc, commit); cc != nil {
			res = lm.lineFile(id, &stc, tip, commit, cc, files, prompts, before)
		}
	}()
	return out
}

// lineFile returns the session slot's lines.File for the commit: the
// record of the committed files the session touched; nil when there is
// none.
func (m *ManualCommit) lineFile(id checkpoint.ID, st *session.State, tip plumbing.Hash, commit *object.Commit, cc *commitChanges, files, prompts []string, before int) map[string][]byte {
	var touched []string
	for _, p := range files {
		if cc.changed[p] {
			touched = append(touched, p)
		}
	}
	rec := m.lineRecordShards(st, tip, commit, cc.base, touched, prompts, before)
	if older := m.previousLines(id, st.SessionID); older != nil {
		// An amend condensed into the checkpoint the amended commit
		// already had: the lines that commit's record holds keep their
		// owners.
		if rec == nil {
			rec = &lines.Record{Commit: commit.Hash.String(), SessionID: st.SessionID, Agent: st.AgentType, Model: older.Model}
		}
		rec.MergeOlder(older, func(p string) (string, bool) {
			e := checkpoint.TreeEntry(cc.head, p)
			if !e.Exists() || !regularFile(e.Mode) {
				return "", false
			}
			return m.blobAt(e.Hash)
		})
		for p, f := range rec.Files {
			if f.Blob == "" {
				f.Blob = entryHash(cc.head, p).String()
				rec.Files[p] = f
			}
		}
	}
	if rec == nil || len(rec.Files) == 0 {
		return nil
	}
	m.redactPaths(rec)
	b, err := rec.Marshal()
	if err != nil {
		m.env.Log.Warn("line attribution: encode", "error", err)
		return nil
	}
	return map[string][]byte{lines.File: b}
}

// redactPaths redacts the paths a record names, as files_touched is: a
// path can hold a secret (a token in a file name), and the record becomes
// a git object that is pushed. A path redacted to one already named is
// left out.
func (m *ManualCommit) redactPaths(rec *lines.Record) {
	redact := func(p string) string { return m.env.Redactor.Text(p) }
	files := make(map[string]lines.FileLines, len(rec.Files))
	for p, f := range rec.Files {
		if _, dup := files[redact(p)]; !dup {
			files[redact(p)] = f
		}
	}
	rec.Files = files
	for i, t := range rec.Turns {
		if len(t.Diffs) == 0 {
			continue
		}
		diffs := make(map[string]string, len(t.Diffs))
		for p, d := range t.Diffs {
			if _, dup := diffs[redact(p)]; !dup {
				diffs[redact(p)] = d
			}
		}
		rec.Turns[i].Diffs = diffs
	}
}

// lineShardMin is the fewest files whose line record a condensation
// splits between two goroutines: the files are independent, and the
// other core would wait on the condensation otherwise.
const lineShardMin = 8

// lineRecordShards is lineRecord over files split in two, one half in a
// goroutine of its own (with its own caches: go-git's trees and this
// condensation's are not safe for concurrent use), the records merged. A
// half that panics gives no record at all.
func (m *ManualCommit) lineRecordShards(st *session.State, tip plumbing.Hash, commit *object.Commit, base *object.Tree, files []string, prompts []string, before int) *lines.Record {
	if len(files) < lineShardMin || runtime.GOMAXPROCS(0) < 2 || base == nil {
		return m.lineRecord(st, tip, commit, base, files, prompts, before)
	}
	otherBase, err := m.env.Repo.Git.TreeObject(base.Hash)
	if err != nil {
		return m.lineRecord(st, tip, commit, base, files, prompts, before)
	}
	var mine, theirs []string
	for i, f := range files {
		if i%2 == 0 {
			mine = append(mine, f)
		} else {
			theirs = append(theirs, f)
		}
	}
	other := &ManualCommit{env: m.env, resumeAfter: m.resumeAfter, prefetched: m.prefetched,
		texts: map[plumbing.Hash]cachedText{}, entries: map[treePath]plumbing.Hash{}, trees: map[plumbing.Hash]*object.Tree{}}
	type result struct {
		rec *lines.Record
		err error
	}
	half := make(chan result, 1)
	go func() {
		var r result
		defer func() { half <- r }()
		defer panics.Recover(&r.err)
		r.rec = other.lineRecord(st, tip, commit, otherBase, theirs, prompts, before)
	}()
	rec := m.lineRecord(st, tip, commit, base, mine, prompts, before)
	r := <-half
	if r.err != nil {
		panic(r.err) // lineFileAsync's recovery logs it
	}
	return mergeRecords(rec, r.rec)
}

// mergeRecords returns the record of a's files and b's, of the same
// commit and session: the turns both name have their diffs merged.
func mergeRecords(a, b *lines.Record) *lines.Record {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	maps.Copy(a.Files, b.Files)
	type key struct {
		turn int
		step string
	}
	at := map[key]int{}
	for i, t := range a.Turns {
		at[key{t.Turn, t.Step}] = i
	}
	for _, t := range b.Turns {
		i, ok := at[key{t.Turn, t.Step}]
		if !ok {
			at[key{t.Turn, t.Step}] = len(a.Turns)
			a.Turns = append(a.Turns, t)
			continue
		}
		if len(t.Diffs) > 0 && a.Turns[i].Diffs == nil {
			a.Turns[i].Diffs = map[string]string{}
		}
		maps.Copy(a.Turns[i].Diffs, t.Diffs)
	}
	slices.SortStableFunc(a.Turns, func(x, y lines.Turn) int {
		if c := cmp.Compare(x.Turn, y.Turn); c != 0 {
			return c
		}
		return x.Time.Compare(y.Time)
	})
	return a
}

// previousLines returns the session's record in checkpoint id, when the
// checkpoint exists and holds one.
func (m *ManualCommit) previousLines(id checkpoint.ID, sessionID string) *lines.Record {
	store := m.env.checkpoints()
	if !store.Exists(id) {
		return nil
	}
	cp, err := store.Read(id)
	if err != nil {
		return nil
	}
	for _, sess := range cp.Sessions {
		if sess.Metadata.SessionID != sessionID {
			continue
		}
		b, err := sess.File(lines.File)
		if err != nil {
			return nil
		}
		rec, err := lines.Parse(b)
		if err != nil {
			m.env.Log.Warn("line attribution: read the amended commit's record", "checkpoint_id", id.String(), "error", err)
			return nil
		}
		return rec
	}
	return nil
}

// firstLine returns the first non-empty line of s, at most 200 bytes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = strings.ToValidUTF8(l[:200], "") + "…"
			}
			return l
		}
	}
	return ""
}

// LineClaim is what a session's shadow branch says of a line of the work
// tree: the turn that wrote it (0: the person, between the turns).
type LineClaim struct {
	SessionID, Agent, Prompt string
	// Step is the shadow-branch commit of the turn.
	Step  string
	Turn  int
	Mixed bool
	Time  time.Time
}

// WorkTreeLines returns, for every line of text (path's content in the
// work tree), the claim of the active session whose turns wrote it, from
// their shadow branches on HEAD; nil for a line no session's chain
// changed. Of two claims a turn's beats the person's, and the earlier
// turn wins.
func (m *ManualCommit) WorkTreeLines(path, text string) []*LineClaim {
	repo := m.env.Repo
	head, err := repo.Head()
	if err != nil {
		return nil
	}
	states, _, err := m.env.Sessions.List()
	if err != nil {
		return nil
	}
	out := make([]*LineClaim, lines.CountLines(text))
	for _, st := range states {
		if st.BaseCommit != head.String() || st.WorktreeID != repo.WorktreeID {
			continue
		}
		tip, err := repo.ReadRef(checkpoint.ShadowRef(shadowBranch(st)))
		if err != nil || tip.IsZero() {
			continue
		}
		baseCommit := st.AttributionBaseCommit
		if baseCommit == "" {
			baseCommit = st.BaseCommit
		}
		base, err := repo.CommitTree(plumbing.NewHash(baseCommit))
		if err != nil || base == nil {
			continue
		}
		start, ok := m.blobText(base, path)
		if !ok {
			continue
		}
		var prompts []string
		if prev := m.previousSlot(baseCommit, st.SessionID); prev != nil {
			prompts = prev.Prompts()
		}
		before := len(prompts)
		prompts = append(prompts, readShadowPrompts(repo, tip, st.SessionID)...)
		events := m.chainEvents(st, tip, base, prompts, before)
		chain := append(m.fileChain(path, base, start, events, false), lines.Step{Text: text, Owner: lines.Person})
		turns := map[int]*lines.Turn{}
		for _, ev := range events {
			if ev.turn != nil {
				turns[ev.turn.Turn] = ev.turn
			}
		}
		for i, o := range lines.Attribute(start, chain) {
			if o.Carried() || o.Turn == otherSession || i >= len(out) {
				continue
			}
			c := &LineClaim{SessionID: st.SessionID, Agent: st.AgentType, Turn: o.Turn, Mixed: o.Mixed}
			if t := turns[o.Turn]; t != nil {
				c.Prompt, c.Time, c.Step = t.Prompt, t.Time, t.Step
			}
			if out[i] == nil || c.beats(out[i]) {
				out[i] = c
			}
		}
	}
	return out
}

// beats is explain.Claim's rule: a turn's claim beats the person's, and
// of two turns the earlier wrote the line.
func (c *LineClaim) beats(o *LineClaim) bool {
	if (c.Turn > 0) != (o.Turn > 0) {
		return c.Turn > 0
	}
	return c.Turn > 0 && c.Time.Before(o.Time)
}
