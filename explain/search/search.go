// Package search is the local full-text index of a repository's
// checkpoints: a document per turn (its prompt, the assistant's text and
// its tool calls, redacted again before they are indexed) with the
// checkpoint, session, commit, branch, agent and time, kept with bleve
// under the git directory and brought up to date incrementally: only the
// checkpoints it has not indexed are read.
//
// It links bleve, whose start-up registrations cost every process that
// links it milliseconds: only entire-web imports it (the hooks never do).
package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	_ "github.com/blevesearch/bleve/v2/analysis/lang/en" // the "en" analyzer
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/lines"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/lockfile"
)

// Dir is the index's directory under the git common directory.
const Dir = checkpoint.SearchIndexDir

// indexedFile lists the checkpoints indexed, one ID a line.
const indexedFile = "indexed"

// maxText bounds the text of one field of a document.
const maxText = 64 << 10

// Index is an open index. Close it.
type Index struct {
	repo   *gitrepo.Repo
	store  *checkpoint.Store
	loader *explain.Loader
	redact func(string) string
	dir    string
	idx    bleve.Index
	lock   *lockfile.Lock
}

// Exists reports whether repo has an index (a search made one).
func Exists(repo *gitrepo.Repo) bool {
	_, err := os.Stat(filepath.Join(repo.CommonDir, Dir, "index"))
	return err == nil
}

// Open opens (creating it when absent) the index of repo, whose
// checkpoints store holds. redact is applied to every text indexed. It
// holds the index's lock until Close, waiting at most wait for it.
func Open(repo *gitrepo.Repo, store *checkpoint.Store, redact func(string) string, wait time.Duration) (*Index, error) {
	dir := filepath.Join(repo.CommonDir, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	lock, err := lockfile.Acquire(filepath.Join(dir, "lock"), lockfile.Options{Timeout: wait})
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	x := &Index{repo: repo, store: store, redact: redact, dir: dir, lock: lock,
		loader: &explain.Loader{Repo: repo, Store: store}}
	path := filepath.Join(dir, "index")
	x.idx, err = bleve.OpenUsing(path, noMerges())
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		os.Remove(filepath.Join(dir, indexedFile))
		x.idx, err = bleve.NewUsing(path, indexMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, noMerges())
	}
	if err != nil {
		lock.Release()
		return nil, fmt.Errorf("search index %s: %w (remove the directory to rebuild it)", path, err)
	}
	return x, nil
}

// Close closes the index and releases its lock.
func (x *Index) Close() error {
	err := x.idx.Close()
	if rerr := x.lock.Release(); err == nil {
		err = rerr
	}
	return err
}

// noMerges is the index's run-time configuration: no background merge of
// segments. Scorch merges whenever a tier holds ten segments, and the
// process that added one checkpoint (the post-commit's indexer) would
// wait for a merge of the whole index when it closes it; compact merges
// instead, when a search finds too many segments.
func noMerges() map[string]any {
	d := mergeplan.DefaultMergePlanOptions
	return map[string]any{"scorchMergePlanOptions": map[string]any{
		"MaxSegmentsPerTier": 1 << 20, "MaxSegmentSize": d.MaxSegmentSize, "TierGrowth": d.TierGrowth,
		"SegmentsPerMergeTask": d.SegmentsPerMergeTask, "FloorSegmentSize": d.FloorSegmentSize,
		"ReclaimDeletesWeight": d.ReclaimDeletesWeight,
	}}
}

// maxSegments is how many segments an update lets the index keep before
// it merges them into one.
const maxSegments = 40

// segments counts the index's segment files.
func (x *Index) segments() int {
	m, _ := filepath.Glob(filepath.Join(x.dir, "index", "store", "*.zap"))
	return len(m)
}

// indexMapping maps a turn document: text fields analysed in English,
// stored for snippets; the rest keywords, a number and a time.
func indexMapping() *mapping.IndexMappingImpl {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = "en"
	keyword := bleve.NewKeywordFieldMapping()
	doc := bleve.NewDocumentMapping()
	for _, f := range []string{"prompt", "answer", "tools"} {
		doc.AddFieldMappingsAt(f, text)
	}
	for _, f := range []string{"checkpoint_id", "session_id", "commit", "branch", "agent", "agent_key"} {
		doc.AddFieldMappingsAt(f, keyword)
	}
	doc.AddFieldMappingsAt("turn", bleve.NewNumericFieldMapping())
	doc.AddFieldMappingsAt("time", bleve.NewDateTimeFieldMapping())
	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = "en"
	return m
}

// doc is one turn as indexed.
type doc struct {
	CheckpointID string    `json:"checkpoint_id"`
	SessionID    string    `json:"session_id"`
	Commit       string    `json:"commit"`
	Branch       string    `json:"branch"`
	Agent        string    `json:"agent"`
	AgentKey     string    `json:"agent_key"`
	Turn         float64   `json:"turn"`
	Time         time.Time `json:"time"`
	Prompt       string    `json:"prompt"`
	Answer       string    `json:"answer"`
	Tools        string    `json:"tools"`
}

// AgentKey is how --agent names an agent: the registry's name of the
// agent of that type or name ("Claude Code" and claude-code are
// claude-code), else the name lowercased with dashes for spaces.
func AgentKey(name string) string {
	if a, err := agent.GetByAgentType(agent.AgentType(name)); err == nil {
		return string(a.Name())
	}
	if a, err := agent.Get(agent.AgentName(name)); err == nil {
		return string(a.Name())
	}
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "-")
}

// Update indexes the checkpoints of the repository the index has not
// indexed yet and returns how many it indexed. When the index has more
// than maxSegments segments it merges them into one, so that searches
// read few files.
func (x *Index) Update(ctx context.Context) (int, error) {
	ids, err := x.store.List()
	if err != nil {
		return 0, fmt.Errorf("list checkpoints: %w", err)
	}
	seen := x.readIndexed()
	var todo []checkpoint.ID
	for _, id := range ids {
		if !seen[id] {
			todo = append(todo, id)
		}
	}
	n, err := x.add(ctx, todo, "")
	if err == nil && x.segments() > maxSegments {
		err = x.compact(ctx)
	}
	return n, err
}

// Add indexes checkpoints ids (the post-commit's new ones), whether or
// not they were indexed before, without listing the repository's; commit,
// when not "", is the commit that carries them.
func (x *Index) Add(ctx context.Context, ids []checkpoint.ID, commit string) (int, error) {
	return x.add(ctx, ids, commit)
}

// add indexes ids, a batch at a time, recording each batch's checkpoints
// as indexed once their documents are in.
func (x *Index) add(ctx context.Context, todo []checkpoint.ID, commit string) (int, error) {
	if len(todo) == 0 {
		return 0, nil
	}
	commits := &commitFinder{repo: x.repo}
	if commit != "" {
		commits.byID = map[checkpoint.ID]string{}
		for _, id := range todo {
			commits.byID[id] = commit
		}
	}
	batch := x.idx.NewBatch()
	var done []checkpoint.ID
	flush := func() error {
		if batch.Size() > 0 {
			if err := x.idx.Batch(batch); err != nil {
				return fmt.Errorf("search index: %w", err)
			}
			batch.Reset()
		}
		if err := x.appendIndexed(done); err != nil {
			return err
		}
		done = done[:0]
		return nil
	}
	count := 0
	for _, id := range todo {
		if err := ctx.Err(); err != nil {
			return count, errors.Join(err, flush())
		}
		for _, d := range x.docs(ctx, id, commits) {
			if err := batch.Index(d.key, d.doc); err != nil {
				return count, fmt.Errorf("search index: %w", err)
			}
		}
		done = append(done, id)
		count++
		if batch.Size() >= 500 {
			if err := flush(); err != nil {
				return count, err
			}
		}
	}
	return count, flush()
}

// compact merges the index's segments into one.
func (x *Index) compact(ctx context.Context) error {
	adv, err := x.idx.Advanced()
	if err != nil {
		return nil
	}
	if sc, ok := adv.(*scorch.Scorch); ok {
		if err := sc.ForceMerge(ctx, &mergeplan.SingleSegmentMergePlanOptions); err != nil {
			return fmt.Errorf("search index: merge: %w", err)
		}
	}
	return nil
}

// keyedDoc is a document with its ID.
type keyedDoc struct {
	key string
	doc doc
}

// docs reads checkpoint id into a document per turn of each session.
func (x *Index) docs(ctx context.Context, id checkpoint.ID, commits *commitFinder) []keyedDoc {
	cp, err := x.store.Read(id)
	if err != nil {
		return nil
	}
	commit := ""
	var out []keyedDoc
	for _, s := range cp.Sessions {
		m := s.Metadata
		if commit == "" {
			if b, err := s.File(lines.File); err == nil {
				if rec, err := lines.Parse(b); err == nil {
					commit = rec.Commit
				}
			}
		}
		entries, prompts, err := x.loader.SessionEntries(s)
		if err != nil {
			continue
		}
		first := len(prompts) - countPrompts(entries) // turns before the scope
		turn := first
		var cur *doc
		var answer, tools []string
		end := func() {
			if cur != nil {
				cur.Answer, cur.Tools = x.clean(strings.Join(answer, "\n")), x.clean(strings.Join(tools, "\n"))
				out = append(out, keyedDoc{key: fmt.Sprintf("%s/%d/%d", id, s.Index, int(cur.Turn)), doc: *cur})
			}
			answer, tools = nil, nil
		}
		base := doc{CheckpointID: id.String(), SessionID: m.SessionID, Branch: m.Branch, Agent: string(m.Agent),
			AgentKey: AgentKey(string(m.Agent)), Time: m.CreatedAt}
		for _, e := range entries {
			switch e.Role {
			case agent.RoleUser:
				end()
				turn++
				d := base
				d.Turn, d.Prompt = float64(max(turn, 1)), x.clean(e.Text)
				cur = &d
			case agent.RoleAssistant:
				answer = append(answer, e.Text)
			case agent.RoleTool:
				tools = append(tools, strings.TrimSpace(e.Tool+" "+e.Text))
			}
		}
		if cur == nil && (len(answer) > 0 || len(tools) > 0) {
			d := base
			d.Turn = float64(max(turn, 1))
			cur = &d
		}
		end()
	}
	if commit == "" {
		commit = commits.find(ctx, id)
	}
	for i := range out {
		out[i].doc.Commit = commit
	}
	return out
}

// clean redacts a text and bounds it.
func (x *Index) clean(s string) string {
	if len(s) > maxText {
		s = strings.ToValidUTF8(s[:maxText], "")
	}
	if x.redact != nil {
		s = x.redact(s)
	}
	return s
}

// countPrompts counts the prompts of a condensed transcript.
func countPrompts(es []explain.Entry) int {
	n := 0
	for _, e := range es {
		if e.Role == agent.RoleUser {
			n++
		}
	}
	return n
}

// readIndexed reads the list of the checkpoints indexed.
func (x *Index) readIndexed() map[checkpoint.ID]bool {
	seen := map[checkpoint.ID]bool{}
	data, err := os.ReadFile(filepath.Join(x.dir, indexedFile))
	if err != nil {
		return seen
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" {
			seen[checkpoint.ID(l)] = true
		}
	}
	return seen
}

// appendIndexed adds ids to the list of the checkpoints indexed, after
// their documents are in the index (a kill between the two indexes them
// again, replacing the same documents). The index's lock keeps writers
// apart.
func (x *Index) appendIndexed(ids []checkpoint.ID) error {
	if len(ids) == 0 {
		return nil
	}
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(id.String() + "\n")
	}
	f, err := os.OpenFile(filepath.Join(x.dir, indexedFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return nil
}

// Query is a search and its filters.
type Query struct {
	// Text is what to look for.
	Text string
	// Branch, Agent (see AgentKey) and Since filter the hits; zero values
	// do not.
	Branch, Agent string
	Since         time.Time
	// Limit bounds the hits (20 when 0).
	Limit int
}

// Hit is one turn that matches.
type Hit struct {
	CheckpointID string    `json:"checkpoint_id"`
	SessionID    string    `json:"session_id"`
	Commit       string    `json:"commit"`
	Branch       string    `json:"branch,omitempty"`
	Agent        string    `json:"agent,omitempty"`
	Turn         int       `json:"turn"`
	Time         time.Time `json:"time,omitzero"`
	Score        float64   `json:"score"`
	// Field is where the snippet is from: prompt, answer or tools.
	Field   string `json:"field"`
	Snippet string `json:"snippet"`
	// Prompt is the first line of the turn's prompt.
	Prompt string `json:"prompt,omitempty"`
}

// Search returns the turns that match q, best first.
func (x *Index) Search(q Query) ([]Hit, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, errors.New("empty query")
	}
	var fields []query.Query
	for f, boost := range map[string]float64{"prompt": 2, "answer": 1, "tools": 1} {
		mq := bleve.NewMatchQuery(text)
		mq.SetField(f)
		mq.SetBoost(boost)
		fields = append(fields, mq)
	}
	must := []query.Query{bleve.NewDisjunctionQuery(fields...)}
	if q.Branch != "" {
		tq := bleve.NewTermQuery(q.Branch)
		tq.SetField("branch")
		must = append(must, tq)
	}
	if q.Agent != "" {
		tq := bleve.NewTermQuery(AgentKey(q.Agent))
		tq.SetField("agent_key")
		must = append(must, tq)
	}
	if !q.Since.IsZero() {
		dq := bleve.NewDateRangeQuery(q.Since, time.Time{})
		dq.SetField("time")
		must = append(must, dq)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(must...), limit, 0, false)
	req.Fields = []string{"*"}
	res, err := x.idx.Search(req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	terms := queryTerms(text)
	out := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		str := func(k string) string { s, _ := h.Fields[k].(string); return s }
		hit := Hit{CheckpointID: str("checkpoint_id"), SessionID: str("session_id"), Commit: str("commit"),
			Branch: str("branch"), Agent: str("agent"), Score: h.Score}
		if n, ok := h.Fields["turn"].(float64); ok {
			hit.Turn = int(n)
		}
		if t, err := time.Parse(time.RFC3339, str("time")); err == nil {
			hit.Time = t
		}
		hit.Prompt = firstLine(str("prompt"))
		hit.Field, hit.Snippet = "prompt", ""
		for _, f := range []string{"prompt", "answer", "tools"} {
			if s, ok := Snippet(str(f), terms, 160); ok {
				hit.Field, hit.Snippet = f, s
				break
			}
		}
		if hit.Snippet == "" {
			hit.Snippet, _ = Snippet(str("prompt"), nil, 160)
		}
		out = append(out, hit)
	}
	return out, nil
}

// queryTerms splits a query into lowercase words.
func queryTerms(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Snippet returns about width bytes of text around the first word that
// starts with one of terms (or its start when terms is nil), on one line;
// false when no term is found.
func Snippet(text string, terms []string, width int) (string, bool) {
	lower := strings.ToLower(text)
	at := -1
	if terms == nil {
		at = 0
	}
	for _, t := range terms {
		stem := t
		if len(stem) > 5 {
			stem = stem[:len(stem)-2] // the stem matches plurals and endings
		}
		if i := strings.Index(lower, stem); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at < 0 {
		return "", false
	}
	start := max(0, at-width/3)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := min(len(text), start+width)
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s, true
}

// firstLine returns the first non-empty line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
