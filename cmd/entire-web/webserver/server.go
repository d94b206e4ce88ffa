package webserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/entirecli/entire/explain"
	"github.com/entirecli/entire/explain/search"
)

// ContentSecurityPolicy is the policy of every response.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed assets templates
var files embed.FS

// Options configure a Server.
type Options struct {
	// Loader reads the repository; its Branch is the default branch
	// shown.
	Loader *explain.Loader
	// Redact is applied to every string shown that comes from local
	// state (the sessions of this machine), as `entire status` does.
	Redact func(string) string
	// Token is the run's secret, the first segment of every path it
	// serves; "" makes a random one.
	Token string
	Log   *slog.Logger
	// Blame, when set, blames a file at a revision (the blame page).
	Blame func(ctx context.Context, path, rev string) ([]explain.BlameLine, error)
	// Search, when set, searches the checkpoints (the search page).
	Search func(q search.Query) ([]search.Hit, error)
}

// Server serves the web view.
type Server struct {
	opts  Options
	token string
	host  string // 127.0.0.1:<port>, once listening
	tmpl  *template.Template
	mux   *http.ServeMux
	// pages bounds the pages rendered at once (gate.go).
	pages *gate
	// lexers caches the syntax of file names by extension.
	lexers sync.Map
}

// New returns a Server for opts.
func New(opts Options) (*Server, error) {
	if opts.Loader == nil {
		return nil, errors.New("webserver: no loader")
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, token: opts.Token}
	if s.token == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("webserver: token: %w", err)
		}
		s.token = hex.EncodeToString(b)
	}
	t, err := template.New("").Funcs(s.funcs()).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("webserver: templates: %w", err)
	}
	s.tmpl = t
	s.pages = newGate()
	s.mux = http.NewServeMux()
	assets, _ := fs.Sub(files, "assets")
	s.mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	s.mux.HandleFunc("GET /assets/chroma.css", s.chromaCSS)
	s.mux.HandleFunc("GET /{$}", s.timeline)
	s.mux.HandleFunc("GET /checkpoint/{id}", s.checkpoint)
	s.mux.HandleFunc("GET /step/{sha}", s.temporary)
	s.mux.HandleFunc("GET /hide/{id}", s.hidePage)
	s.mux.HandleFunc("GET /blame", s.blamePage)
	s.mux.HandleFunc("GET /search", s.searchPage)
	return s, nil
}

// Token returns the run's token.
func (s *Server) Token() string { return s.token }

// Listen listens on 127.0.0.1:port (0: a free port) and returns the
// listener and the URL to open, which carries the token as its first path
// segment.
func (s *Server) Listen(port int) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, "", fmt.Errorf("listen on 127.0.0.1:%d: %w", port, err)
	}
	s.host = ln.Addr().String()
	return ln, "http://" + s.host + s.prefix() + "/", nil
}

// prefix is the path every page and asset is served under: "/<token>".
// The token is a capability in the URL rather than a cookie: cookies are
// not scoped by port, so a cookie for 127.0.0.1 went to every server on
// the machine (a dev server an agent started on :3000 among them), while
// a path is sent only to this one. Referrer-Policy no-referrer keeps it
// out of the requests links make.
func (s *Server) prefix() string { return "/" + s.token }

// link returns the URL of a path of this server ("/checkpoint/<id>"),
// under the token.
func (s *Server) link(path string) string { return s.prefix() + path }

// Serve serves on ln until ctx ends, then shuts down (waiting at most 5 s
// for requests in flight).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.host == "" {
		s.host = ln.Addr().String()
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return err
		}
		return nil
	}
}

// Handler returns the server's handler: headers, the Host check and the
// token check (the first path segment) before any route.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if s.host == "" || r.Host != s.host {
			http.Error(w, "403 forbidden: wrong host", http.StatusForbidden)
			return
		}
		tok, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if !s.validToken(tok) || r.URL.RawPath != "" && !strings.HasPrefix(r.URL.RawPath, s.prefix()+"/") {
			http.Error(w, "403 forbidden: open the URL `entire web` printed", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
			return
		}
		// The routes see the path under the token.
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path = "/" + rest
		u.RawPath = ""
		if r.URL.RawPath != "" {
			u.RawPath = strings.TrimPrefix(r.URL.RawPath, s.prefix())
		}
		r2.URL = &u
		if strings.HasPrefix(u.Path, "/assets/") {
			s.mux.ServeHTTP(w, r2)
			return
		}
		s.pages.serve(w, r2, s.mux)
	})
}

func (s *Server) validToken(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// render writes template name with data, or a 500 page.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var b strings.Builder
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		s.opts.Log.Warn("web: render", "template", name, "error", err)
		http.Error(w, "500 internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// fail writes an error page.
func (s *Server) fail(w http.ResponseWriter, status int, msg string) {
	s.render(w, status, "error.html", map[string]any{"Title": http.StatusText(status), "Status": status, "Message": msg})
}
