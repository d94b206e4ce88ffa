package explain

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/condensed"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrAmbiguous is returned when a checkpoint ID prefix matches several
// checkpoints.
var ErrAmbiguous = errors.New("explain: ambiguous checkpoint ID")

// historyLimit bounds the commits searched for linked commits and list
// entries unless a search is asked to cover everything (SPEC 1.9).
const historyLimit = 500

// listLimit bounds the number of checkpoints the list view shows.
const listLimit = 100

// Loader builds views from a repository. Repo and Store are required.
type Loader struct {
	Repo  *gitrepo.Repo
	Store *checkpoint.Store
	// DefaultBranch is the repository's default branch as a revision
	// ("main", "origin/main"); "" when unknown. The list view of another
	// branch stops at commits reachable from it.
	DefaultBranch string
	// Remote is the checkpoint remote, named in the fetch command shown
	// for transcript objects missing here ("" means origin).
	Remote string
	// Branch is the local branch the list view shows ("" means HEAD).
	Branch string
}

// MissingObjects returns the hashes of the objects of s's stored
// transcript (its chunks, and the tree of values moved out of long lines
// with its entries) that are not in the repository, as in a partial
// clone; nil when none is missing.
func (l *Loader) MissingObjects(s *checkpoint.Session) []string {
	st := s.StoredTranscript()
	var out []string
	check := func(h plumbing.Hash) bool {
		if l.Repo.HasObject(h) {
			return true
		}
		out = append(out, h.String())
		return false
	}
	for _, h := range st.Chunks {
		check(h)
	}
	if !st.Blobs.IsZero() && check(st.Blobs) {
		if t, err := l.Repo.Git.TreeObject(st.Blobs); err == nil {
			for _, e := range t.Entries {
				if check(e.Hash) && !e.Mode.IsFile() {
					if sub, err := l.Repo.Git.TreeObject(e.Hash); err == nil {
						for _, se := range sub.Entries {
							check(se.Hash)
						}
					}
				}
			}
		}
	}
	return out
}

// FetchCommand is the git command that fetches the given objects from the
// checkpoint remote.
func (l *Loader) FetchCommand(objects []string) string {
	return fetchCommand(l.Remote, objects)
}

func fetchCommand(remote string, objects []string) string {
	if remote == "" {
		remote = "origin"
	}
	return "git fetch " + remote + " " + strings.Join(objects, " ")
}

// Resolve returns the committed checkpoint that id names: the ID itself
// (read directly, without listing the metadata branch) or a unique prefix
// of one. It returns an error wrapping checkpoint.ErrNotFound when nothing
// matches and ErrAmbiguous (listing up to 5 candidates) when several do.
func (l *Loader) Resolve(id string) (checkpoint.ID, error) {
	id = checkpoint.NormalizeID(id)
	if cid := checkpoint.ID(id); cid.Valid() {
		if l.Store.Exists(cid) {
			return cid, nil
		}
		return "", fmt.Errorf("%w: %s", checkpoint.ErrNotFound, id)
	}
	// A prefix of a hex ID or of a ULID (either case).
	if id == "" || len(id) > 26 || strings.Trim(strings.ToLower(id), "0123456789abcdefghjkmnpqrstvwxyz") != "" {
		return "", fmt.Errorf("%w: %q is not a checkpoint ID or prefix", checkpoint.ErrNotFound, id)
	}
	ids, err := l.Store.List()
	if err != nil {
		return "", err
	}
	var match []string
	for _, c := range ids {
		if strings.HasPrefix(strings.ToLower(string(c)), strings.ToLower(id)) {
			match = append(match, string(c))
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("%w: %s", checkpoint.ErrNotFound, id)
	case 1:
		return checkpoint.ID(match[0]), nil
	}
	shown := match
	if len(shown) > 5 {
		shown = shown[:5]
	}
	return "", fmt.Errorf("%w: %s matches %d checkpoints: %s", ErrAmbiguous, id, len(match), strings.Join(shown, ", "))
}

// ViewOptions selects what Checkpoint loads.
type ViewOptions struct {
	Mode Mode
	// SearchAll looks for linked commits in every ref without a depth
	// limit instead of the first 500 commits `git log HEAD` walks.
	SearchAll bool
}

// Checkpoint loads the view of committed checkpoint id. It reads that
// checkpoint's files, one bounded git log for the linked commits and one
// path-limited log of the metadata branch for the author.
func (l *Loader) Checkpoint(ctx context.Context, id checkpoint.ID, opts ViewOptions) (*CheckpointView, *checkpoint.Checkpoint, error) {
	cp, err := l.Store.Read(id)
	if err != nil {
		return nil, nil, err
	}
	v := &CheckpointView{ID: string(id), Files: cp.Root.FilesTouched, CommitsSearched: true, SearchedAll: opts.SearchAll,
		FetchRemote: l.Remote}
	tokens := &agent.TokenUsage{}
	recorded := false
	for _, s := range cp.Sessions {
		m := s.Metadata
		if v.Created.IsZero() || (!m.CreatedAt.IsZero() && m.CreatedAt.Before(v.Created)) {
			v.Created = m.CreatedAt
		}
		recorded = recorded || m.TokenUsage != nil
		tokens.Add(m.TokenUsage)
		sv, err := l.sessionView(s, opts.Mode)
		if err != nil {
			return nil, nil, err
		}
		l.relativize(sv.Transcript)
		v.Sessions = append(v.Sessions, sv)
		if len(cp.Root.FilesTouched) == 0 {
			for _, f := range m.FilesTouched {
				v.Files = agent.AppendUnique(v.Files, f)
			}
		}
	}
	if r := cp.Root.TokenUsage; r != nil {
		recorded = true
		// The root summary's totals, with the sessions' subagent usage
		// that SPEC's root summary leaves out; a root of zeros over
		// sessions that recorded usage does not hide theirs.
		if !r.IsZero() || tokens.IsZero() {
			sub := tokens.SubagentTokens
			root := *r
			tokens = &root
			tokens.SubagentTokens = sub
		}
	}
	if recorded {
		v.Tokens = tokens
	}
	latest := cp.Sessions[len(cp.Sessions)-1].Metadata
	v.Summary, v.Attribution = latest.Summary, latest.InitialAttribution
	v.Author = l.author(ctx, id)
	if v.Commits, err = l.LinkedCommits(ctx, id, opts.SearchAll); err != nil {
		return nil, nil, err
	}
	return v, cp, nil
}

// Scope returns the start of a session's checkpoint scope (SPEC 4.3).
func Scope(m checkpoint.SessionMetadata) int {
	return condensed.Scope(m.CheckpointTranscriptStart, m.TranscriptLinesAtStart)
}

// ScopedTranscript returns the condensed entries of a session's checkpoint
// scope (SPEC 4.3). A legacy transcript_lines_at_start (without
// checkpoint_transcript_start) past the end of the stored transcript
// counted the lines of another file than the one stored: the scope is then
// the whole transcript.
func ScopedTranscript(content []byte, m checkpoint.SessionMetadata) ([]Entry, error) {
	entries, n, err := condensed.ParseCounted(agent.ForTranscript(m.Agent, content), content, Scope(m))
	if err == nil && m.CheckpointTranscriptStart == 0 && m.TranscriptLinesAtStart > n {
		return ParseTranscript(content, 0)
	}
	return entries, err
}

// sessionView reads one session's prompts and, unless mode is ModeShort,
// its condensed transcript: in the default mode from the slot's
// condensed.File when it has a valid one, else from the stored transcript,
// read one chunk at a time. A transcript whose objects are not in the
// repository is reported in the view (MissingObjects), not as an error.
func (l *Loader) sessionView(s *checkpoint.Session, mode Mode) (SessionView, error) {
	m := s.Metadata
	sv := SessionView{ID: m.SessionID, Agent: m.Agent, Tokens: m.TokenUsage}
	if m.IsTask {
		sv.ToolUseID = m.ToolUseID
	}
	if mode == ModeShort {
		sv.Prompts = s.Prompts()
		return sv, nil
	}
	missing := func() (SessionView, error) {
		sv.Prompts = s.Prompts()
		sv.MissingObjects = l.MissingObjects(s)
		return sv, nil // a session without transcript still has its metadata
	}
	st := s.StoredTranscript()
	if len(st.Chunks) == 0 {
		return missing()
	}
	if mode == ModeDefault {
		if scoped, ok := condensedScope(s); ok && len(l.MissingObjects(s)) == 0 {
			sv.Transcript = scoped
			if sv.Prompts = prompts(scoped); len(sv.Prompts) == 0 {
				sv.Prompts = s.Prompts()
			}
			return sv, nil
		}
	}
	from := Scope(m)
	if mode == ModeFull {
		from = 0
	}
	recs, n, jsonl, err := streamRecords(l.Repo, st, m.Agent, from)
	if err != nil {
		return missing()
	}
	if !jsonl {
		return l.documentView(s, sv, mode)
	}
	scope := Scope(m)
	if m.CheckpointTranscriptStart == 0 && m.TranscriptLinesAtStart > n {
		// A legacy transcript_lines_at_start past the end counted the
		// lines of another file than the one stored: the whole
		// transcript is the scope.
		scope = 0
		if from > 0 {
			if recs, _, _, err = streamRecords(l.Repo, st, m.Agent, 0); err != nil {
				return missing()
			}
		}
	}
	scoped := condensed.Entries(recs, scope)
	if sv.Prompts = prompts(scoped); len(sv.Prompts) == 0 {
		sv.Prompts = s.Prompts()
	}
	sv.Transcript = scoped
	if mode == ModeFull && Scope(m) > 0 {
		sv.Transcript = condensed.Entries(recs, 0)
	}
	return sv, nil
}

// streamRecords returns the records of a stored JSONL transcript from
// line from on and its number of lines, reading it one chunk at a time;
// jsonl is false (and nothing is read) for a JSON document. The lines are
// read by the agent ForTranscript tells from label and the first line.
func streamRecords(repo *gitrepo.Repo, st checkpoint.Stored, label agent.AgentType, from int) (recs []condensed.Record, lines int, jsonl bool, err error) {
	p := condensed.LineParser{Start: from, Label: label}
	jsonl, err = checkpoint.ForEachLine(repo, st, func(line []byte) error {
		recs = p.Line(line, recs)
		return nil
	})
	return recs, p.Lines(), jsonl, err
}

// documentView is sessionView for a transcript stored as one JSON
// document (Gemini CLI), which is read whole.
func (l *Loader) documentView(s *checkpoint.Session, sv SessionView, mode Mode) (SessionView, error) {
	m := s.Metadata
	content, err := s.Transcript()
	if err != nil {
		sv.Prompts = s.Prompts()
		sv.MissingObjects = l.MissingObjects(s)
		return sv, nil
	}
	scoped, err := ScopedTranscript(content, m)
	if err != nil {
		return sv, fmt.Errorf("session %s: %w", m.SessionID, err)
	}
	sv.Prompts = prompts(scoped)
	if len(sv.Prompts) == 0 {
		sv.Prompts = s.Prompts()
	}
	sv.Transcript = scoped
	if mode == ModeFull && Scope(m) > 0 {
		if sv.Transcript, err = ParseTranscript(content, 0); err != nil {
			return sv, fmt.Errorf("session %s: %w", m.SessionID, err)
		}
	}
	return sv, nil
}

// relativize shows tool arguments that are paths inside the repository
// relative to its root.
func (l *Loader) relativize(entries []Entry) {
	prefix := strings.TrimSuffix(l.Repo.Root, "/") + "/"
	for i, e := range entries {
		if e.Role == RoleTool {
			entries[i].Text = strings.TrimPrefix(e.Text, prefix)
		}
	}
}

func prompts(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		if e.Role == RoleUser {
			out = append(out, e.Text)
		}
	}
	return out
}

// metadataRev is the metadata branch as a revision git understands: the
// local branch, else origin's copy.
func (l *Loader) metadataRev() string {
	if h, err := l.Repo.ReadRef(checkpoint.MetadataRef); err == nil && !h.IsZero() {
		return h.String()
	}
	if h, err := l.Repo.ReadRef(l.Store.RemoteRef()); err == nil && !h.IsZero() {
		return h.String()
	}
	return ""
}

// author returns "name <email>" of the metadata commit that first wrote
// checkpoint id, "" when unknown. It does not walk the whole metadata
// branch: a checkpoint stays on the branch once written, so the commit that
// introduced it is found by a binary search over the first-parent chain
// (about 2·log2(n) tree reads). When that commit merged it in from another
// clone, the search goes on in the merged side.
func (l *Loader) author(ctx context.Context, id checkpoint.ID) string {
	if tip, err := l.Repo.ReadRef(id.RefName()); err == nil && !tip.IsZero() {
		// Its own ref (SPEC 10.3): the first commit of its short history
		// (bounded: the ref comes from teammates too).
		c, err := l.Repo.Git.CommitObject(tip)
		for i := 0; err == nil && len(c.ParentHashes) > 0 && i < 1000; i++ {
			c, err = l.Repo.Git.CommitObject(c.ParentHashes[0])
		}
		if err != nil {
			return ""
		}
		return c.Author.Name + " <" + c.Author.Email + ">"
	}
	rev := l.metadataRev()
	if rev == "" {
		return ""
	}
	c := l.introducedBy(ctx, plumbing.NewHash(rev), id.Shard(), 4)
	if c == nil {
		return ""
	}
	return c.Author.Name + " <" + c.Author.Email + ">"
}

// introducedBy returns the oldest commit of tip's first-parent chain that
// has path (nil when tip does not have it), following merged-in sides up to
// depth merges deep.
func (l *Loader) introducedBy(ctx context.Context, tip plumbing.Hash, path string, depth int) *object.Commit {
	chain, err := l.Repo.FirstParentChain(ctx, tip)
	if err != nil {
		return nil
	}
	has := func(h plumbing.Hash) bool {
		c, err := l.Repo.Git.CommitObject(h)
		if err != nil {
			return false
		}
		t, err := c.Tree()
		if err != nil {
			return false
		}
		_, err = t.FindEntry(path)
		return err == nil
	}
	if len(chain) == 0 || !has(chain[0]) {
		return nil
	}
	// has is true for chain[0..k] and false after: find k.
	k := sort.Search(len(chain), func(i int) bool { return !has(chain[i]) }) - 1
	c, err := l.Repo.Git.CommitObject(chain[k])
	if err != nil {
		return nil
	}
	if depth > 0 {
		for _, p := range c.ParentHashes[min(1, len(c.ParentHashes)):] {
			if has(p) {
				if m := l.introducedBy(ctx, p, path, depth-1); m != nil {
					return m
				}
			}
		}
	}
	return c
}

// logEntry is one commit of a git log.
type logEntry struct {
	Commit
	Message string
}

// gitLog runs git log with a parseable format and returns its commits.
func (l *Loader) gitLog(ctx context.Context, args ...string) ([]logEntry, error) {
	args = append([]string{"log", "--format=%H%x1f%ct%x1f%s%x1f%B%x1e"}, args...)
	out, err := l.Repo.RunGit(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	var res []logEntry
	for _, rec := range strings.Split(string(out), "\x1e") {
		f := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x1f", 4)
		if len(f) != 4 {
			continue
		}
		sec, _ := strconv.ParseInt(f[1], 10, 64)
		res = append(res, logEntry{Commit: Commit{SHA: f[0], Date: time.Unix(sec, 0), Subject: f[2]}, Message: f[3]})
	}
	return res, nil
}

// hasHead reports whether HEAD points to a commit.
func (l *Loader) hasHead() bool {
	h, err := l.Repo.Head()
	return err == nil && !h.IsZero()
}

// LinkedCommits returns the commits that carry checkpoint id (their
// trailer, or a squash or rebase that brought it along: checkpoint.Carries),
// in the order git log walks them: among the first 500 commits `git log
// HEAD` walks, merged-in commits included, or with searchAll among all
// commits of all branches (shadow and metadata branches excluded).
func (l *Loader) LinkedCommits(ctx context.Context, id checkpoint.ID, searchAll bool) ([]Commit, error) {
	var args []string
	if searchAll {
		args = []string{"--grep=Entire-Checkpoint: *" + string(id), "--extended-regexp",
			"--exclude=entire/*", "--branches", "--exclude=*/entire/*", "--remotes", "--tags"}
	} else {
		if !l.hasHead() {
			return nil, nil
		}
		// The bound counts the commits walked, not the matches: the
		// messages are filtered here.
		args = []string{"-n", strconv.Itoa(historyLimit), "HEAD"}
	}
	entries, err := l.gitLog(ctx, args...)
	if err != nil {
		return nil, err
	}
	var out []Commit
	for _, e := range entries {
		if checkpoint.Carries(e.Message, id) { // its own trailer, or brought by a squash
			out = append(out, e.Commit)
		}
	}
	return out, nil
}

// SessionEntries returns the condensed transcript of a session slot's
// checkpoint scope (from its condensed.File when valid, else from the
// stored transcript) and the session's prompts so far.
func (l *Loader) SessionEntries(s *checkpoint.Session) ([]Entry, []string, error) {
	sv, err := l.sessionView(s, ModeDefault)
	if err != nil {
		return nil, nil, err
	}
	return sv.Transcript, s.Prompts(), nil
}
