package webserver

import (
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/explain/search"
)

// sessionColors is how many colours the blame page gives sessions.
const sessionColors = 8

// blameRow is a blamed line as the page shows it.
type blameRow struct {
	explain.BlameLine
	// Class colours the line: by session (s0..s7), the person's, or
	// unknown.
	Class string
	// Title is the hover text: who, the session and turn, the prompt.
	Title string
}

// blamePage serves ?path=P&rev=R: the file's lines coloured by session,
// each line's prompt on hover, its checkpoint a click away.
func (s *Server) blamePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, rev := path.Clean(strings.TrimPrefix(q.Get("path"), "/")), q.Get("rev")
	if rev == "" {
		rev = "HEAD"
	}
	if q.Get("path") == "" || p == "." || strings.HasPrefix(p, "../") || p == ".." || strings.HasPrefix(rev, "-") {
		s.fail(w, http.StatusBadRequest, "name a file of the repository: ?path=<file>[&rev=<revision>]")
		return
	}
	if s.opts.Blame == nil {
		s.fail(w, http.StatusNotFound, "blame is not available")
		return
	}
	ls, err := s.opts.Blame(r.Context(), p, rev)
	if err != nil {
		s.fail(w, http.StatusNotFound, err.Error())
		return
	}
	sessions := map[string]int{}
	var legend []map[string]string
	rows := make([]blameRow, len(ls))
	for i, l := range ls {
		l.Prompt = s.opts.Redact(l.Prompt)
		row := blameRow{BlameLine: l}
		switch l.Kind {
		case explain.KindAgent, explain.KindMixed:
			n, ok := sessions[l.SessionID]
			if !ok {
				n = len(sessions)
				sessions[l.SessionID] = n
				legend = append(legend, map[string]string{"Class": sessionClass(n), "Session": l.SessionID, "Agent": l.Agent})
			}
			row.Class = sessionClass(n)
			if l.Kind == explain.KindMixed {
				row.Class += " mixed"
			}
			row.Title = l.Agent + ", session " + l.SessionID + ", turn " + strconv.Itoa(l.Turn) + ": " + l.Prompt
			if l.Kind == explain.KindMixed {
				row.Title = "the person, over " + row.Title
			}
		case explain.KindHuman:
			row.Class, row.Title = "person", "the person"
			if l.Author != "" {
				row.Title += " (" + l.Author + ")"
			}
		default:
			row.Class, row.Title = "unknown", "unknown: the commit's checkpoint records no lines"
		}
		rows[i] = row
	}
	s.render(w, http.StatusOK, "blame.html", map[string]any{"Title": "Blame " + p, "Path": p, "Rev": rev, "Rows": rows, "Legend": legend})
}

// sessionClass names the colour of the n-th session shown.
func sessionClass(n int) string { return "s" + strconv.Itoa(n%sessionColors) }

// searchPage serves ?q=...&branch=&agent=&since=: the ranked turns.
func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	data := map[string]any{"Title": "Search", "Q": q.Get("q"), "Branch": q.Get("branch"), "Agent": q.Get("agent")}
	if strings.TrimSpace(q.Get("q")) == "" || s.opts.Search == nil {
		if s.opts.Search == nil {
			data["Error"] = "search is not available"
		}
		s.render(w, http.StatusOK, "search.html", data)
		return
	}
	hits, err := s.opts.Search(search.Query{Text: q.Get("q"), Branch: q.Get("branch"), Agent: q.Get("agent"), Limit: 50})
	if err != nil {
		data["Error"] = err.Error()
	}
	for i := range hits {
		hits[i].Snippet, hits[i].Prompt = s.opts.Redact(hits[i].Snippet), s.opts.Redact(hits[i].Prompt)
	}
	data["Hits"], data["Searched"] = hits, true
	s.render(w, http.StatusOK, "search.html", data)
}
