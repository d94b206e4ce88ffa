package webserver

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/renderrefs"
)

// newTestServer serves an empty repository's view through a real
// listener on 127.0.0.1.
func newTestServer(t *testing.T) (*Server, string) {
	t.Helper()
	dir := gittest.InitWithCommit(t)
	repo, err := gitrepo.Open(dir, gitrepo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Loader: &explain.Loader{Repo: repo, Store: checkpoint.NewStore(repo, time.Now)}})
	if err != nil {
		t.Fatal(err)
	}
	ln, url, err := s.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s, url
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func checkHeaders(t *testing.T, what string, resp *http.Response) {
	t.Helper()
	if got := resp.Header.Get("Content-Security-Policy"); got != ContentSecurityPolicy {
		t.Errorf("%s: CSP %q", what, got)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q", what, got)
	}
}

// The token is the first segment of every path: a request without it,
// with a wrong one or for another Host is refused; no cookie is set (a
// cookie for 127.0.0.1 goes to every port of the machine); every response
// has the headers; nothing redirects.
func TestAuth(t *testing.T) {
	t.Parallel()
	s, printed := newTestServer(t)
	base := strings.TrimSuffix(printed, "/"+s.Token()+"/")
	if printed != base+"/"+s.Token()+"/" || len(s.Token()) != 48 {
		t.Fatalf("printed URL %q", printed)
	}
	get := func(path string, mod func(*http.Request)) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		if mod != nil {
			mod(req)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		checkHeaders(t, path, resp)
		if len(resp.Cookies()) > 0 || resp.Header.Get("Location") != "" {
			t.Errorf("%s: cookies %v, Location %q", path, resp.Cookies(), resp.Header.Get("Location"))
		}
		return resp
	}
	tok := "/" + s.Token()
	for _, tc := range []struct {
		what   string
		path   string
		mod    func(*http.Request)
		status int
	}{
		{"no token", "/", nil, http.StatusForbidden},
		{"the token as a query", "/?token=" + s.Token(), nil, http.StatusForbidden},
		{"the token as a cookie", "/", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "entire_web", Value: s.Token()}) }, http.StatusForbidden},
		{"a wrong token", "/" + strings.Repeat("0", 48) + "/", nil, http.StatusForbidden},
		{"a token prefix", tok[:20] + "/", nil, http.StatusForbidden},
		{"an open redirect", "//evil.com/?token=" + s.Token(), nil, http.StatusForbidden},
		{"another Host", tok + "/", func(r *http.Request) { r.Host = "localhost" + r.Host[strings.Index(r.Host, ":"):] }, http.StatusForbidden},
		{"the timeline", tok + "/", nil, http.StatusOK},
		{"an asset", tok + "/assets/style.css", nil, http.StatusOK},
		{"the highlighting", tok + "/assets/chroma.css", nil, http.StatusOK},
		{"an unknown checkpoint", tok + "/checkpoint/abcdef123456", nil, http.StatusNotFound},
		{"a bad checkpoint ID", tok + "/checkpoint/..%2f..%2fetc", nil, http.StatusNotFound},
		{"an unknown hide", tok + "/hide/nope", nil, http.StatusNotFound},
		{"an unknown page", tok + "/nope", nil, http.StatusNotFound},
		{"a branch out of the refs", tok + "/?branch=../../config", nil, http.StatusNotFound},
		{"a branch that is an option", tok + "/?branch=--output%3D%2Ftmp%2Fx", nil, http.StatusNotFound},
		{"an unknown branch", tok + "/?branch=nope", nil, http.StatusOK},
	} {
		if resp := get(tc.path, tc.mod); resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.what, resp.StatusCode, tc.status)
		}
	}
	// Only loopback: the listener's address.
	if host, _, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://")); host != "127.0.0.1" {
		t.Errorf("listening on %s", host)
	}
	req := httptest.NewRequest("POST", base+tok+"/", nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
}

// A browser that opened the view sends nothing of its credential to
// another server on 127.0.0.1 (a dev server on another port): what the
// browser keeps for the view is scoped to it.
func TestCredentialStaysWithTheView(t *testing.T) {
	t.Parallel()
	s, printed := newTestServer(t)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(printed)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `href="/`+s.Token()+`/assets/style.css"`) {
		t.Fatalf("the view: %d\n%s", resp.StatusCode, page)
	}
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Cookie")+" "+r.URL.String()+" "+r.Header.Get("Referer"))
	}))
	defer other.Close()
	resp, err = browser.Get(other.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, got := range seen {
		if strings.Contains(got, s.Token()) {
			t.Errorf("the other server received the token: %q", got)
		}
	}
}

// What a transcript says is text on the page: markup is escaped, links
// are http(s) only and tell nothing of the page.
func TestLinkifyEscapes(t *testing.T) {
	t.Parallel()
	got := string(linkify(`see https://example.com/a?b=1&c=2. <img src=x onerror=alert(1)> javascript:alert(1) http://x.test/"onmouseover=`))
	for _, want := range []string{
		`<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer" target="_blank">`,
		`&lt;img src=x onerror=alert(1)&gt;`,
		`javascript:alert(1)`,
		`<a href="http://x.test/" rel="noopener noreferrer"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("linkify lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<img") || strings.Contains(got, `href="javascript`) {
		t.Errorf("linkify let markup through:\n%s", got)
	}
}

// Diff lines are highlighted and escaped.
func TestHighlightDiffEscapes(t *testing.T) {
	t.Parallel()
	got := string(highlightWith(lexers.Get("go"), explain.FileDiff{Path: "x.go", Lines: []explain.DiffLine{
		{Kind: '@', Text: "@@ -1 +1 @@ <b>"},
		{Kind: '+', Text: `s := "<script>alert(1)</script>"`},
	}}))
	if strings.Contains(got, "<script>") || strings.Contains(got, "<b>") || !strings.Contains(got, `class="add"`) || !strings.Contains(got, "&lt;script&gt;") {
		t.Errorf("highlighted diff:\n%s", got)
	}
}

// Images are shown only as raster data: URIs whose bytes are what their
// type says.
func TestImageURI(t *testing.T) {
	t.Parallel()
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	if uri, ok := explain.ImageURI("image/png", png); !ok || uri != "data:image/png;base64,"+png {
		t.Errorf("a PNG: %q %v", uri, ok)
	}
	svg := "PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnIG9ubG9hZD0nYWxlcnQoMSknLz4="
	for _, tc := range [][2]string{{"image/svg+xml", svg}, {"image/png", svg}, {"text/html", png}, {"image/jpeg", png}, {"image/png", "not base64!"}, {"image/png", png + "\"><script>"}} {
		if uri, ok := explain.ImageURI(tc[0], tc[1]); ok {
			t.Errorf("ImageURI(%q, %.20q) = %q", tc[0], tc[1], uri)
		}
	}
}

func TestWebCardsLinkOnlyWhatThePageCanShow(t *testing.T) {
	t.Parallel()
	card := func(typ, id string, state explain.CardState) explain.RefCard {
		return explain.RefCard{Ref: renderrefs.Reference{V: 1, Type: typ, ID: id}, State: state}
	}
	s := &Server{token: "t0k"}
	cards := s.webCards([]explain.RefCard{
		card("checkpoint", "a3b2c4d5e6f7", explain.CardLive),
		card("checkpoint", "../../etc", explain.CardLive),
		card("checkpoint", "a3b2c4d5e6f8", explain.CardGone),
		card("hide", "h 1/x", explain.CardLive),
		card("note", "listed", explain.CardLive),
		card("note", "unlisted", explain.CardLive),
		card("undo_point", "u1", explain.CardPreview),
		card("hide", "h2", explain.CardUnavailable),
	}, []notes.Note{{Key: "listed"}})
	want := []string{"/t0k/checkpoint/a3b2c4d5e6f7", "", "", "/t0k/hide/h%201%2Fx?page=1", "#note-listed", "", "", ""}
	for i, c := range cards {
		if c.Href != want[i] {
			t.Errorf("card %d (%s %s): href %q, want %q", i, c.Ref.Type, c.Ref.ID, c.Href, want[i])
		}
	}
	if got := cards[2].Class() + " " + cards[6].Class() + " " + cards[7].Class() + " " + cards[0].Class(); got != "gone preview unavailable live" {
		t.Errorf("classes: %s", got)
	}
}
