package explain

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/strategy/subagent"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The read model of the local web view (`entire web`): the timeline of a
// branch and the page of one checkpoint, with its conversation read from
// the stored transcript a page of turns at a time. Everything here is
// data; the server escapes it.

// TurnsPerPage is how many turns of a conversation a checkpoint page
// shows.
const TurnsPerPage = 20

// webStringLimit bounds each string read from a transcript (a tool output,
// an image): longer ones are cut when the line is read.
const webStringLimit = 32 << 10

// previewLimit bounds the text of a tool call's input or output on a page.
const previewLimit = 8 << 10

// Timeline is a branch's checkpoints, newest first.
type Timeline struct {
	Branch   string
	Branches []string
	Query    string
	Items    []TimelineItem
	// Unreadable names checkpoints whose metadata cannot be read.
	Unreadable []string
}

// TimelineItem is one checkpoint of the timeline: committed, or the
// temporary checkpoints of one active session.
type TimelineItem struct {
	ID          string
	Temporary   bool
	Task        bool
	Prompt      string
	Commits     []Commit
	Agents      []string
	Sessions    int
	Tokens      int
	Attribution *checkpoint.Attribution
}

// Timeline builds the timeline of the Loader's branch (Loader.Branch, else
// HEAD's), keeping the checkpoints with a prompt that holds query (any
// case) when query is not empty.
func (l *Loader) Timeline(ctx context.Context, query string) (*Timeline, error) {
	lv, err := l.List(ctx, "")
	if err != nil {
		return nil, err
	}
	t := &Timeline{Branch: lv.Branch, Query: query}
	for _, e := range lv.Unreadable {
		t.Unreadable = append(t.Unreadable, e.Error())
	}
	if out, err := l.Repo.RunGit(ctx, "for-each-ref", "--count=200", "--format=%(refname:short)", "refs/heads"); err == nil {
		for _, b := range strings.Fields(string(out)) {
			if !strings.HasPrefix(b, "entire/") {
				t.Branches = append(t.Branches, b)
			}
		}
	}
	q := strings.ToLower(strings.TrimSpace(query))
	for _, g := range lv.Groups {
		it := TimelineItem{ID: g.ID, Temporary: g.Temporary, Task: g.Task, Prompt: g.Prompt, Commits: g.Commits, Sessions: 1}
		prompts := []string{g.Prompt}
		if !g.Temporary {
			if cp, err := l.Store.Read(checkpoint.ID(g.ID)); err == nil {
				it.Sessions = len(cp.Sessions)
				for _, s := range cp.Sessions {
					it.Agents = agent.AppendUnique(it.Agents, string(s.Metadata.Agent))
					if u := s.Metadata.TokenUsage; u != nil {
						it.Tokens += usageTotal(u)
					}
					if q != "" {
						prompts = append(prompts, s.Prompts()...)
					}
				}
				it.Attribution = CheckpointAttribution(cp)
			}
		}
		if q != "" && !anyContains(prompts, q) {
			continue
		}
		t.Items = append(t.Items, it)
	}
	return t, nil
}

// anyContains reports whether one of texts holds q (lower case) in any
// case.
func anyContains(texts []string, q string) bool {
	for _, s := range texts {
		if strings.Contains(strings.ToLower(s), q) {
			return true
		}
	}
	return false
}

// usageTotal is every token of u, subagents' included.
func usageTotal(u *agent.TokenUsage) int {
	if u == nil {
		return 0
	}
	return u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens + u.OutputTokens + usageTotal(u.SubagentTokens)
}

// Turn is one turn of a conversation: the person's prompt and what the
// agent did until the next one.
type Turn struct {
	// N is the turn's number, from 1.
	N      int
	Prompt string
	Time   time.Time
	Items  []Item
	Tokens int
}

// Item is one thing the agent said or did.
type Item struct {
	// Text is what the agent (or, for a turn's first item without a
	// prompt, the person) wrote; Call is set instead for a tool call.
	Role   string
	Text   string
	Images []Image
	Call   *Call
}

// Call is a tool call with its input and result, shortened to a preview.
type Call struct {
	ID        string
	Name      string
	Input     string
	InputCut  int
	Output    string
	OutputCut int
	HasOutput bool
	IsError   bool
	Images    []Image
	// Subagent is what a subagent the call started said and did, and Task
	// the task it recorded (its conclusion), when the call started one.
	Subagent []Item
	Task     string
}

// Image is an image of a transcript as a data: URI, kept only for the
// raster types whose bytes begin as their type says.
type Image struct {
	URI string
}

// Conversation is a page of a session's conversation.
type Conversation struct {
	Turns []Turn
	// From is the first turn shown (from 0); More reports turns after the
	// page.
	From int
	More bool
	// Readable is false when the agent's transcript cannot be read as a
	// conversation (then Turns is empty).
	Readable bool
}

// ReadConversation reads turns from..from+TurnsPerPage-1 of session s's
// stored transcript, reading no further than that page.
func (l *Loader) ReadConversation(s *checkpoint.Session, from int) (*Conversation, error) {
	st := s.StoredTranscript()
	ag := l.transcriptAgent(st, s.Metadata.Agent)
	return readConversation(ag, func() (io.ReadCloser, error) { return l.storedReader(st, typeOf(ag)) }, from)
}

// transcriptAgent returns the agent that wrote stored transcript st, by
// agent.ForTranscript: the content of its first chunk before the label
// (Entire 0.4.x labelled Claude Code JSONL "Gemini CLI"), then the default
// agent. A first chunk larger than any the writer makes (a crafted push)
// is not read: ForTranscript goes by the label as far as it trusts it.
func (l *Loader) transcriptAgent(st checkpoint.Stored, label agent.AgentType) agent.Agent {
	var first []byte
	if len(st.Chunks) > 0 {
		if size, err := l.Repo.ObjectSize(st.Chunks[0]); err == nil && size <= 2*agent.MaxChunkSize {
			first, _ = l.Repo.ReadBlob(st.Chunks[0])
		}
	}
	return agent.ForTranscript(label, first)
}

func readConversation(ag agent.Agent, open func() (io.ReadCloser, error), from int) (*Conversation, error) {
	c := &Conversation{From: from}
	cr, ok := agent.ConversationOf(ag)
	if !ok {
		return c, nil
	}
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c.Readable = true
	b := turnBuilder{from: from}
	err = cr.ReadConversation(r, webStringLimit, func(m agent.Message) bool {
		if m.Prompt && !m.Sidechain {
			b.n++
			if b.n > from+TurnsPerPage {
				c.More = true
				return false
			}
		}
		if b.n <= from && (from > 0 || b.n > 0) {
			return true
		}
		b.add(m)
		return true
	})
	c.Turns = b.turns
	return c, err
}

// turnBuilder gathers the messages of the turns shown.
type turnBuilder struct {
	from  int
	n     int // turns seen
	turns []Turn
	calls map[string]*Call
}

func (b *turnBuilder) add(m agent.Message) {
	if m.Prompt && !m.Sidechain || len(b.turns) == 0 {
		t := Turn{N: b.n, Time: m.Time}
		if m.Prompt {
			t.Prompt = m.Text
		}
		b.turns = append(b.turns, t)
		if m.Prompt {
			return
		}
	}
	t := &b.turns[len(b.turns)-1]
	if m.Usage != nil && !m.Sidechain {
		t.Tokens += usageTotal(m.Usage)
	}
	if b.calls == nil {
		b.calls = map[string]*Call{}
	}
	items := &t.Items
	if m.Sidechain {
		// A subagent's message goes under the newest call still waiting
		// for its result (the call that started it).
		for i := len(t.Items) - 1; i >= 0; i-- {
			if c := t.Items[i].Call; c != nil && !c.HasOutput {
				items = &c.Subagent
				break
			}
		}
	}
	if strings.TrimSpace(m.Text) != "" || len(m.Images) > 0 {
		*items = append(*items, Item{Role: m.Role, Text: m.Text, Images: images(m.Images)})
	}
	for _, call := range m.Calls {
		c := &Call{ID: call.ID, Name: call.Name}
		c.Input, c.InputCut = preview(prettyJSON(call.Input))
		*items = append(*items, Item{Role: m.Role, Call: c})
		if call.ID != "" {
			b.calls[call.ID] = c
		}
	}
	for _, res := range m.Results {
		c := b.calls[res.CallID]
		if c == nil {
			c = &Call{ID: res.CallID, Name: "(tool result)"}
			*items = append(*items, Item{Role: m.Role, Call: c})
		}
		c.HasOutput, c.IsError = true, res.IsError
		c.Output, c.OutputCut = preview(res.Text)
		c.Images = append(c.Images, images(res.Images)...)
	}
}

// preview cuts s to previewLimit bytes (at a rune start) and says how
// many were left out.
func preview(s string) (string, int) {
	if len(s) <= previewLimit {
		return s, 0
	}
	cut := previewLimit
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut], len(s) - cut
}

// prettyJSON indents a tool call's input for reading.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// rasterMagic are the first bytes of the image types a page shows.
var rasterMagic = map[string][]string{
	"image/png":  {"\x89PNG\r\n\x1a\n"},
	"image/jpeg": {"\xff\xd8\xff"},
	"image/gif":  {"GIF87a", "GIF89a"},
	"image/webp": {"RIFF"},
}

// images keeps the images a page can show: raster types whose data
// decodes and starts as the type says, as data: URIs. An SVG or HTML
// "image" is never shown.
func images(in []agent.Image) []Image {
	var out []Image
	for _, img := range in {
		if uri, ok := ImageURI(img.MediaType, img.Data); ok {
			out = append(out, Image{URI: uri})
		}
	}
	return out
}

// ImageURI returns the data: URI of a base64 image of mediaType when the
// type is a raster one a page shows and the data starts with its magic
// bytes.
func ImageURI(mediaType, data string) (string, bool) {
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	magics, ok := rasterMagic[mediaType]
	if !ok || data == "" || strings.ContainsAny(data, " \"'<>") {
		return "", false
	}
	head, err := base64.StdEncoding.DecodeString(data[:min(len(data), 16)])
	if err != nil || len(head) < 4 {
		return "", false
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return "", false
	}
	for _, m := range magics {
		if strings.HasPrefix(string(head), m) {
			if mediaType == "image/webp" && !bytes.Contains(head, []byte("WEBP")) {
				return "", false
			}
			return "data:" + mediaType + ";base64," + data, true
		}
	}
	return "", false
}

// typeOf is a's type; "" for none (no agent is registered).
func typeOf(a agent.Agent) agent.AgentType {
	if a == nil {
		return ""
	}
	return a.Type()
}

// storedReader streams a stored transcript: JSONL line by line (values
// moved out of long lines put back), a JSON document whole.
func (l *Loader) storedReader(st checkpoint.Stored, t agent.AgentType) (io.ReadCloser, error) {
	if len(st.Chunks) == 0 {
		return nil, errors.New("no transcript is stored")
	}
	pr, pw := io.Pipe()
	go func() {
		jsonl, err := checkpoint.ForEachLine(l.Repo, st, func(line []byte) error {
			if _, err := pw.Write(line); err != nil {
				return err
			}
			_, err := pw.Write([]byte{'\n'})
			return err
		})
		if err == nil && !jsonl {
			var content []byte
			if content, err = checkpoint.ReadTranscript(l.Repo, st, t); err == nil {
				_, err = pw.Write(content)
			}
		}
		pw.CloseWithError(err)
	}()
	return pr, nil
}

// Step is one temporary checkpoint (a shadow commit) of a session: a turn
// end, with what it changed against the step before it.
type Step struct {
	SHA     string
	Subject string
	Time    time.Time
	Diff    []FileDiff
	DiffCut bool
	// DiffErr says why the diff could not be read.
	DiffErr string
}

// SessionSteps is the page of an active session's temporary checkpoints.
type SessionSteps struct {
	SessionID string
	Agent     agent.AgentType
	Prompts   []string
	// Steps are the session's newest steps up to TurnsPerPage, newest
	// first, from the one the page was asked for.
	Steps []Step
	// Conversation is the transcript the newest step stores.
	Conversation *Conversation
}

// TemporarySteps loads the steps of the session of shadow commit c (from c
// back along its branch), each with its diff, and the conversation c
// stores, from turn from on.
func (l *Loader) TemporarySteps(ctx context.Context, c *object.Commit, from int) (*SessionSteps, error) {
	info := checkpoint.ParseStep(c)
	out := &SessionSteps{SessionID: info.SessionID}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read shadow commit %s: %w", short7(c.Hash.String()), err)
	}
	var st checkpoint.Stored
	if sub, err := tree.Tree(checkpoint.MetadataDirPrefix + info.SessionID); err == nil {
		if b, err := l.blob(sub, checkpoint.PromptFile); err == nil && len(b) > 0 {
			out.Prompts = strings.Split(string(b), "\n\n---\n\n")
		}
		st = checkpoint.StoredIn(sub)
		var meta checkpoint.SessionMetadata
		if b, err := l.blob(sub, checkpoint.MetadataFile); err == nil && json.Unmarshal(b, &meta) == nil {
			out.Agent = meta.Agent
		}
	}
	head := ""
	if h, err := l.Repo.Head(); err == nil && !h.IsZero() {
		head = h.String()
	}
	l.walkShadow(c.Hash, func(sc *object.Commit) bool {
		if checkpoint.ParseStep(sc).SessionID != info.SessionID || len(out.Steps) >= TurnsPerPage {
			return false
		}
		step := Step{SHA: sc.Hash.String(), Subject: strings.SplitN(sc.Message, "\n", 2)[0], Time: sc.Author.When}
		// A shadow branch's first step has no parent: it is compared with
		// HEAD, the commit the session's shadow branch is based on.
		base := head
		if len(sc.ParentHashes) > 0 {
			base = sc.ParentHashes[0].String()
		}
		if base != "" {
			var err error
			if step.Diff, step.DiffCut, err = l.TreeDiff(ctx, base, sc.Hash.String()); err != nil {
				step.DiffErr = err.Error()
			}
		}
		out.Steps = append(out.Steps, step)
		return true
	})
	if len(st.Chunks) > 0 {
		ag := l.transcriptAgent(st, out.Agent)
		conv, err := readConversation(ag, func() (io.ReadCloser, error) { return l.storedReader(st, typeOf(ag)) }, from)
		if err != nil {
			return nil, err
		}
		out.Conversation = conv
	}
	return out, nil
}

// HidePage is a page of a hide, for the page that shows hides.
type HidePage struct {
	ID, Source       string
	Page, TotalPages int
	Content          string
}

// SessionHides returns the IDs of the hides session s kept.
func (l *Loader) SessionHides(sessionID string) []string {
	ids, _ := hide.NewStore(l.Repo).SessionHides(sessionID)
	return ids
}

// ReadHidePage returns page (from 1) of hide id.
func (l *Loader) ReadHidePage(id string, page int) (*HidePage, error) {
	c, err := hide.NewStore(l.Repo).Cut(id, page, 0)
	if err != nil {
		return nil, fmt.Errorf("hide %s page %d: %w", id, page, err)
	}
	return &HidePage{ID: c.HideID, Source: c.Source, Page: c.PageNumber, TotalPages: c.TotalPages, Content: c.Content}, nil
}

// maxWebNotes bounds the notes a page lists.
const maxWebNotes = 100

// AgentNotes returns the notes of the agent of type t (pinned first, as
// the store lists them), at most maxWebNotes; none when they cannot be
// read.
func (l *Loader) AgentNotes(ctx context.Context, t agent.AgentType) []notes.Note {
	ag, err := agent.GetByAgentType(t)
	if err != nil || ag == nil {
		return nil
	}
	store, err := notes.NewStore(ctx, l.Repo, notes.WithAgent(string(ag.Name())))
	if err != nil {
		return nil
	}
	list, err := store.List(ctx)
	if err != nil {
		return nil
	}
	return list[:min(len(list), maxWebNotes)]
}

// TaskText is one subagent task of a session as WriteTasks shows it.
type TaskText struct {
	// ID is the task's ID: the tool use ID of the call that started it,
	// for most agents.
	ID   string
	Text string
}

// TaskTexts returns session s's subagent tasks in the slot's order, each
// as WriteTasks shows it; none when the slot has none or cannot be read.
func (l *Loader) TaskTexts(ctx context.Context, s *checkpoint.Session) []TaskText {
	tasks, err := subagent.ReadSlot(l.Repo, s)
	if err != nil || len(tasks) == 0 {
		return nil
	}
	artifacts := subagent.NewPresenceResolver(l.Repo.Root)
	memory := noteResolver(ctx, l.Repo, string(s.Metadata.Agent))
	out := make([]TaskText, len(tasks))
	for i, t := range tasks {
		out[i] = TaskText{ID: t.ID, Text: subagent.Format(t, artifacts, memory)}
	}
	return out
}

// AttachTasks puts each task of tasks (TaskTexts) on the call that
// started it.
func (c *Conversation) AttachTasks(tasks []TaskText) {
	if len(tasks) == 0 {
		return
	}
	byID := make(map[string]string, len(tasks))
	for _, t := range tasks {
		byID[t.ID] = t.Text
	}
	var walk func(items []Item)
	walk = func(items []Item) {
		for _, it := range items {
			if it.Call == nil {
				continue
			}
			if text, ok := byID[it.Call.ID]; ok {
				it.Call.Task = text
			}
			walk(it.Call.Subagent)
		}
	}
	for _, t := range c.Turns {
		walk(t.Items)
	}
}

// Redact applies redact to every string of the conversation: what it
// shows from this machine's state goes through the redactor.
func (c *Conversation) Redact(redact func(string) string) {
	var walk func(items []Item)
	walk = func(items []Item) {
		for i := range items {
			it := &items[i]
			it.Text = redact(it.Text)
			if call := it.Call; call != nil {
				call.Input, call.Output, call.Task = redact(call.Input), redact(call.Output), redact(call.Task)
				walk(call.Subagent)
			}
		}
	}
	for i := range c.Turns {
		c.Turns[i].Prompt = redact(c.Turns[i].Prompt)
		walk(c.Turns[i].Items)
	}
}
