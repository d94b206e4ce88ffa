package webserver

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/strategy/references"
)

// timeline serves the branch's checkpoints (?branch=B, ?q=search).
func (s *Server) timeline(w http.ResponseWriter, r *http.Request) {
	l := *s.opts.Loader
	if b := r.URL.Query().Get("branch"); b != "" {
		if !validBranch(b) {
			s.fail(w, http.StatusNotFound, "no such branch")
			return
		}
		l.Branch = b
	}
	q := r.URL.Query().Get("q")
	t, err := l.Timeline(r.Context(), q)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	for i := range t.Items {
		if t.Items[i].Temporary {
			t.Items[i].Prompt = s.opts.Redact(t.Items[i].Prompt)
		}
	}
	s.render(w, http.StatusOK, "timeline.html", map[string]any{"Title": "Timeline: " + t.Branch, "T": t})
}

// sessionPage is one session of a checkpoint page.
type sessionPage struct {
	Index  int
	View   explain.SessionView
	Conv   *explain.Conversation
	Tasks  []explain.TaskText
	Cards  []refCard
	Hides  []string
	Notes  []notes.Note
	Tokens []int
}

// refCard is a render reference as the checkpoint page shows it: the
// resolved card and, when the entity can be shown in this view, where.
type refCard struct {
	explain.RefCard
	Href string
}

// Class names the card's state, for its CSS class.
func (c refCard) Class() string {
	switch c.RefCard.State {
	case explain.CardLive:
		return "live"
	case explain.CardGone:
		return "gone"
	case explain.CardUnavailable:
		return "unavailable"
	}
	return "preview"
}

// webCards links each card to the page that shows its entity: a
// checkpoint's page, a hide's first page, a note listed on this page. A
// gone entity, an undo point (the view never reads undo data) and types
// this view does not know get no link.
func (s *Server) webCards(cards []explain.RefCard, listed []notes.Note) []refCard {
	out := make([]refCard, len(cards))
	for i, c := range cards {
		out[i] = refCard{RefCard: c}
		if c.State == explain.CardGone || c.State == explain.CardUnavailable {
			continue
		}
		switch c.Ref.Type {
		case references.TypeCheckpoint:
			if id, err := checkpoint.ParseID(c.Ref.ID); err == nil {
				out[i].Href = s.link("/checkpoint/" + string(id))
			}
		case references.TypeHide:
			out[i].Href = s.link("/hide/" + url.PathEscape(c.Ref.ID) + "?page=1")
		case references.TypeNote:
			for _, n := range listed {
				if n.Key == c.Ref.ID {
					out[i].Href = "#note-" + n.Key
				}
			}
		}
	}
	return out
}

// checkpoint serves a committed checkpoint: every session of it, each
// session's conversation from turn ?turn=K on.
func (s *Server) checkpoint(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	l := s.opts.Loader
	id, err := l.Resolve(r.PathValue("id"))
	if err != nil {
		s.fail(w, http.StatusNotFound, err.Error())
		return
	}
	v, cp, err := l.Checkpoint(ctx, id, explain.ViewOptions{Mode: explain.ModeShort})
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, checkpoint.ErrNotFound) {
			status = http.StatusNotFound
		}
		s.fail(w, status, err.Error())
		return
	}
	turn := atoiMin(r.URL.Query().Get("turn"), 0)
	var sessions []sessionPage
	for i, sess := range cp.Sessions {
		sp := sessionPage{Index: i, View: v.Sessions[i]}
		sp.Conv, err = l.ReadConversation(sess, turn)
		if err != nil {
			s.opts.Log.Warn("web: read conversation", "checkpoint", id, "error", err)
		}
		sp.Tasks = l.TaskTexts(ctx, sess)
		if sp.Conv != nil {
			sp.Conv.AttachTasks(sp.Tasks)
			for _, t := range sp.Conv.Turns {
				sp.Tokens = append(sp.Tokens, t.Tokens)
			}
		}
		sp.Hides = l.SessionHides(sess.Metadata.SessionID)
		sp.Notes = l.AgentNotes(ctx, sess.Metadata.Agent)
		cards, err := explain.SessionCards(ctx, l.Repo, sess, nil)
		if err != nil {
			s.opts.Log.Warn("web: read references", "checkpoint", id, "error", err)
		}
		sp.Cards = s.webCards(cards, sp.Notes)
		sessions = append(sessions, sp)
	}
	var diffs []explain.FileDiff
	diffCut := false
	if len(v.Commits) > 0 {
		diffs, diffCut, err = l.CommitDiff(ctx, v.Commits[0].SHA)
		if err != nil {
			s.opts.Log.Warn("web: diff", "commit", v.Commits[0].SHA, "error", err)
		}
	}
	branch := "<branch>"
	if b := cp.Sessions[len(cp.Sessions)-1].Metadata.Branch; b != "" {
		branch = b
	}
	s.render(w, http.StatusOK, "checkpoint.html", map[string]any{
		"Title": "Checkpoint " + string(id), "V": v, "Sessions": sessions, "Turn": turn, "Branch": branch,
		"Diffs": diffs, "DiffCut": diffCut, "Next": turn + explain.TurnsPerPage, "Prev": max(turn-explain.TurnsPerPage, 0),
	})
}

// temporary serves an active session's temporary checkpoints from the
// step asked for back: each with its diff, and the conversation that step
// stores from turn ?turn=K on. Everything on it comes from this machine's
// shadow branches, so it goes through the redactor.
func (s *Server) temporary(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	l := s.opts.Loader
	c, err := l.Temporary(r.PathValue("sha"))
	if err != nil {
		s.fail(w, http.StatusNotFound, err.Error())
		return
	}
	turn := atoiMin(r.URL.Query().Get("turn"), 0)
	steps, err := l.TemporarySteps(ctx, c, turn)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	redact := s.opts.Redact
	for i := range steps.Prompts {
		steps.Prompts[i] = redact(steps.Prompts[i])
	}
	for i := range steps.Steps {
		steps.Steps[i].Subject = redact(steps.Steps[i].Subject)
	}
	if conv := steps.Conversation; conv != nil {
		conv.Redact(redact)
	}
	var tokens []int
	if steps.Conversation != nil {
		for _, t := range steps.Conversation.Turns {
			tokens = append(tokens, t.Tokens)
		}
	}
	s.render(w, http.StatusOK, "temporary.html", map[string]any{
		"Title": "Session " + steps.SessionID, "S": steps, "Step": c.Hash.String(), "Tokens": tokens, "Turn": turn,
		"Next": turn + explain.TurnsPerPage, "Prev": max(turn-explain.TurnsPerPage, 0),
	})
}

// hidePage serves page ?page=N of a hide.
func (s *Server) hidePage(w http.ResponseWriter, r *http.Request) {
	p, err := s.opts.Loader.ReadHidePage(r.PathValue("id"), atoiMin(r.URL.Query().Get("page"), 1))
	if err != nil {
		s.fail(w, http.StatusNotFound, err.Error())
		return
	}
	s.render(w, http.StatusOK, "hide.html", map[string]any{"Title": "Hide " + p.ID, "H": p})
}

// chromaCSS serves the stylesheet of the highlighted diffs.
func (s *Server) chromaCSS(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	_ = chromahtml.New(chromahtml.WithClasses(true)).WriteCSS(&b, styles.Get("github"))
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func atoiMin(s string, lo int) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo {
		return lo
	}
	return n
}

// funcs are the templates' helpers.
func (s *Server) funcs() template.FuncMap {
	return template.FuncMap{
		"short":     func(sha string) string { return sha[:min(7, len(sha))] },
		"link":      s.link,
		"when":      func(t time.Time) string { return t.Local().Format("2006-01-02 15:04") },
		"num":       formatTokens,
		"chart":     tokenChart,
		"attrbar":   attributionBar,
		"highlight": s.highlightDiff,
		"linkify":   linkify,
		"imgsrc":    func(uri string) template.URL { return template.URL(uri) }, // explain.ImageURI checked it
		"plus":      func(a, b int) int { return a + b },
		"kind":      func(k byte) string { return map[byte]string{'+': "add", '-': "del", '@': "hunk"}[k] },
	}
}

// formatTokens writes a token count shortly (12.3k, 4.5M).
func formatTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return strconv.Itoa(n)
}

// tokenChart draws tokens per turn as an SVG bar chart (server-drawn:
// attributes only, no style, so the page's policy holds).
func tokenChart(tokens []int, first int) template.HTML {
	if len(tokens) == 0 {
		return ""
	}
	peak := 1
	for _, t := range tokens {
		peak = max(peak, t)
	}
	const barW, gap, h = 22, 6, 120
	width := len(tokens)*(barW+gap) + gap
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" role="img" aria-label="tokens per turn" width="%d" height="%d" viewBox="0 0 %d %d">`, width, h+30, width, h+30)
	for i, t := range tokens {
		bh := int(float64(t) / float64(peak) * h)
		x := gap + i*(barW+gap)
		fmt.Fprintf(&b, `<rect class="bar" x="%d" y="%d" width="%d" height="%d"><title>turn %d: %s tokens</title></rect>`, x, h-bh, barW, max(bh, 1), first+i+1, formatTokens(t))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-size="10">%d</text>`, x+barW/2, h+14, first+i+1)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// attributionBar draws the agent's and the person's share of the
// committed lines.
func attributionBar(a *checkpoint.Attribution) template.HTML {
	if a == nil || a.TotalCommitted == 0 {
		return ""
	}
	agentPct := min(max(a.AgentPercentage, 0), 100)
	return template.HTML(fmt.Sprintf(`<svg class="attr" role="img" aria-label="%.0f%% agent" width="160" height="10" viewBox="0 0 100 10" preserveAspectRatio="none"><rect class="agent" x="0" y="0" width="%.2f" height="10"></rect><rect class="human" x="%.2f" y="0" width="%.2f" height="10"></rect></svg> %.0f%% agent`,
		agentPct, agentPct, agentPct, 100-agentPct, agentPct))
}

// highlightDiff renders a file's diff lines with the syntax of its path.
func (s *Server) highlightDiff(f explain.FileDiff) template.HTML {
	return highlightWith(s.lexer(f.Path), f)
}

// lexer returns the lexer of a file's name, found once per extension
// (chroma matches a name against every lexer's patterns: milliseconds).
func (s *Server) lexer(name string) chroma.Lexer {
	key := path.Ext(name)
	if key == "" {
		key = path.Base(name)
	}
	if l, ok := s.lexers.Load(key); ok {
		return l.(chroma.Lexer)
	}
	l := lexers.Match(path.Base(name))
	if l == nil {
		l = lexers.Fallback
	}
	l = chroma.Coalesce(l)
	s.lexers.Store(key, l)
	return l
}

// highlightWith renders a file's diff lines with lexer.
func highlightWith(lexer chroma.Lexer, f explain.FileDiff) template.HTML {
	var b strings.Builder
	for _, l := range f.Lines {
		cls := map[byte]string{'+': "add", '-': "del", '@': "hunk", ' ': "ctx"}[l.Kind]
		b.WriteString(`<tr class="` + cls + `"><td class="sign">` + template.HTMLEscapeString(string(l.Kind)) + `</td><td class="code">`)
		if l.Kind == '@' {
			b.WriteString(template.HTMLEscapeString(l.Text))
		} else if it, err := lexer.Tokenise(nil, l.Text); err == nil {
			for _, tok := range it.Tokens() {
				val := strings.TrimSuffix(tok.Value, "\n")
				if c := chroma.StandardTypes[tok.Type]; c != "" {
					b.WriteString(`<span class="` + c + `">` + template.HTMLEscapeString(val) + `</span>`)
				} else {
					b.WriteString(template.HTMLEscapeString(val))
				}
			}
		} else {
			b.WriteString(template.HTMLEscapeString(l.Text))
		}
		b.WriteString("</td></tr>\n")
	}
	return template.HTML(b.String())
}

// linkify escapes text and makes its http(s) URLs links that open apart
// from the page and tell nothing of it.
func linkify(text string) template.HTML {
	var b strings.Builder
	for len(text) > 0 {
		i := indexURL(text)
		if i < 0 {
			b.WriteString(template.HTMLEscapeString(text))
			break
		}
		b.WriteString(template.HTMLEscapeString(text[:i]))
		end := i
		for end < len(text) && !strings.ContainsRune(" \t\r\n\"'<>`", rune(text[end])) {
			end++
		}
		u := strings.TrimRight(text[i:end], ".,;:)]}")
		end = i + len(u)
		b.WriteString(`<a href="` + template.HTMLEscapeString(u) + `" rel="noopener noreferrer" target="_blank">` + template.HTMLEscapeString(u) + `</a>`)
		text = text[end:]
	}
	return template.HTML(b.String())
}

// indexURL returns where the first http:// or https:// URL of s starts.
func indexURL(s string) int {
	i, j := strings.Index(s, "http://"), strings.Index(s, "https://")
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

// validBranch reports whether b can name a local branch: what a URL asks
// for never reaches git or the refs directory otherwise.
func validBranch(b string) bool {
	if len(b) > 200 || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") ||
		strings.Contains(b, "..") || strings.Contains(b, "//") || strings.HasSuffix(b, ".lock") {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._/-+", c)) {
			return false
		}
	}
	return true
}
