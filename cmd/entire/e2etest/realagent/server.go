package realagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Usage is the token usage the server reports for one model response.
// Claude gets input, cache creation, cache read and output tokens; Gemini
// gets prompt (Input), cached (CacheRead) and candidates (Output) tokens.
type Usage struct {
	Input         int
	CacheCreation int
	CacheRead     int
	Output        int
}

// ToolCall is a tool call the scripted model makes.
type ToolCall struct {
	// Name is the tool's name as the client offers it (Write, write_file).
	Name string
	// Input is the tool's argument object; it is sent as JSON.
	Input any
	// Optional calls are left out where the client does not offer the
	// tool at all (Claude Code 2.1.332 has no TaskCreate); a step left
	// with nothing to say is left out of the script.
	Optional bool
}

// Step is one scripted model response: the text it says and the tools it
// calls. A step with tools ends with stop reason tool_use; one without ends
// the turn.
type Step struct {
	Text  string
	Tools []ToolCall
	Usage Usage
}

// Script is what a model says, step by step, in a turn whose user prompt
// carries the script's marker. Past its last step the server fails the
// request (and the test).
type Script []Step

// Kind tells which client API a request was made on.
type Kind string

// Request kinds.
const (
	// KindClaude is an Anthropic Messages call (POST /v1/messages).
	KindClaude Kind = "claude"
	// KindGeminiStream is a Gemini agent-loop call (streamGenerateContent).
	KindGeminiStream Kind = "gemini-stream"
	// KindGeminiRouter is a Gemini JSON-mode call (generateContent), the
	// client's model router or another utility call.
	KindGeminiRouter Kind = "gemini-generate"
)

// Request is one model call the server answered.
type Request struct {
	Kind Kind
	// Script is the name of the script that answered ("" for router calls).
	Script string
	// Step is the step of the script that answered.
	Step int
	// Usage is the usage sent with the answer.
	Usage Usage
	// Markers are the script markers (SCRIPT:<name> and what follows on
	// the line) of every user message of the conversation, oldest first:
	// a resumed session's request carries the earlier turns' prompts.
	Markers []string
	// Body is the request body (the first MaxKeptBody bytes).
	Body string
}

// MaxKeptBody bounds the part of a request body a Request keeps.
const MaxKeptBody = 4 << 20

func keptBody(b []byte) string {
	if len(b) > MaxKeptBody {
		b = b[:MaxKeptBody]
	}
	return string(b)
}

// Saw reports whether a request answered by one of the named scripts (any
// script when none is named) carried text.
func (s *Server) Saw(text string, scripts ...string) bool {
	for _, r := range s.Requests() {
		if (len(scripts) == 0 || contains(scripts, r.Script)) && strings.Contains(r.Body, text) {
			return true
		}
	}
	return false
}

// First returns the first request answered by script, and whether there
// was one.
func (s *Server) First(script string) (Request, bool) {
	for _, r := range s.Requests() {
		if r.Script == script {
			return r, true
		}
	}
	return Request{}, false
}

// markerLineRe is a script marker and the rest of its line.
var markerLineRe = regexp.MustCompile(`SCRIPT:[A-Za-z0-9_-]+[^\n]*`)

// markers returns the marker lines of the user messages' own texts,
// without the closing quote of a prompt a client quoted (OpenCode's run
// quotes its message).
func markers(texts []string, model []bool) []string {
	var out []string
	for i, t := range texts {
		if !model[i] {
			for _, m := range markerLineRe.FindAllString(t, -1) {
				if strings.HasPrefix(strings.TrimSpace(t), `"`) {
					m = strings.TrimSuffix(m, `"`)
				}
				out = append(out, m)
			}
		}
	}
	return out
}

// markerRe finds a script marker in a user message's own text.
var markerRe = regexp.MustCompile(`SCRIPT:([A-Za-z0-9_-]+)`)

// Server is a scripted model server on 127.0.0.1 for Claude Code
// (Messages), Gemini CLI (generateContent), Codex CLI (Responses) and the
// clients on Chat Completions (Copilot CLI). It is stateless in what it answers: the step of a script is
// the number of model messages after the last user message whose own text
// holds the script's marker, so a client's retry gets the same answer.
// Requests on paths it does not serve, past MaxRequests, or past a script's
// end fail the test.
type Server struct {
	t           testing.TB
	srv         *http.Server
	ln          net.Listener
	maxRequests int

	mu       sync.Mutex
	scripts  map[string]Script
	requests []Request
	served   int
}

// DefaultMaxRequests bounds how many requests a server answers.
const DefaultMaxRequests = 200

// NewServer starts a server on a free port of 127.0.0.1 that answers the
// given scripts; it stops when the test ends.
func NewServer(t testing.TB, scripts map[string]Script) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("model server: %v", err)
	}
	s := &Server{t: t, ln: ln, scripts: map[string]Script{}, maxRequests: DefaultMaxRequests}
	for name, sc := range scripts {
		s.scripts[name] = sc
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// URL returns the server's base URL, http://127.0.0.1:<port>.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// SetScript adds or replaces a script.
func (s *Server) SetScript(name string, sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[name] = sc
}

// Requests returns the model calls answered so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls returns the calls of the given kind answered by any of the named
// scripts, and their summed usage.
func (s *Server) Calls(kind Kind, scripts ...string) (n int, u Usage) {
	for _, r := range s.Requests() {
		if r.Kind != kind || !contains(scripts, r.Script) {
			continue
		}
		n++
		u.Input += r.Usage.Input
		u.CacheCreation += r.Usage.CacheCreation
		u.CacheRead += r.Usage.CacheRead
		u.Output += r.Usage.Output
	}
	return n, u
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fail records a test error and answers an HTTP error, so the client
// stops instead of looping.
func (s *Server) fail(w http.ResponseWriter, code int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.t.Errorf("model server: %s", msg)
	http.Error(w, msg, code)
}

// EnvDump names a directory the server writes each request body to
// (NNN-<path>.json), to see what a new client version sends.
const EnvDump = "ENTIRE_REALAGENT_DUMP"

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.served++
	over := s.served > s.maxRequests
	n := s.served
	s.mu.Unlock()
	if dir := os.Getenv(EnvDump); dir != "" && r.Method == http.MethodPost {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		name := fmt.Sprintf("%03d-%s.json", n, strings.NewReplacer("/", "_", ":", "_").Replace(strings.Trim(r.URL.Path, "/")))
		os.WriteFile(filepath.Join(dir, name), body, 0o644)
	}
	if over {
		s.fail(w, http.StatusTooManyRequests, "more than %d requests", s.maxRequests)
		return
	}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodHead && path == "/":
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		writeJSON(w, map[string]any{"input_tokens": 1})
	case r.Method == http.MethodPost && path == "/v1/messages":
		s.claude(w, r)
	case r.Method == http.MethodPost && path == "/v1/responses":
		s.responses(w, r)
	case r.Method == http.MethodPost && path == "/v1/chat/completions":
		s.chat(w, r)
	case r.Method == http.MethodGet && path == "/v1/models":
		s.models(w)
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/v1beta/models/") && strings.HasSuffix(path, ":streamGenerateContent"):
		s.gemini(w, r, true)
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/v1beta/models/") && strings.HasSuffix(path, ":generateContent"):
		s.gemini(w, r, false)
	default:
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		s.fail(w, http.StatusNotFound, "unexpected request %s %s", r.Method, r.URL)
	}
}

// readBody reads a request body of at most 64 MiB.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return b, nil
}

// pick finds the script and step for a conversation. texts[i] is the own
// text of message i when it is a user message ("" for tool results and
// model messages); model[i] tells whether message i is the model's.
//
// aux[i] marks model messages the server said on its own (a ToolSearch
// that loads a deferred tool, see Server.claude): they are not steps.
// offered, when not nil, holds the tools the client offers (see
// Script.offeredTo).
func (s *Server) pick(texts []string, model, aux []bool, offered map[string]bool) (name string, step int, sc Script, ok bool) {
	last := -1
	for i := len(texts) - 1; i >= 0; i-- {
		if m := markerRe.FindStringSubmatch(texts[i]); m != nil && !model[i] {
			name, last = m[1], i
			break
		}
	}
	if last < 0 {
		return "", 0, nil, false
	}
	for i := last + 1; i < len(model); i++ {
		if model[i] && (aux == nil || !aux[i]) {
			step++
		}
	}
	s.mu.Lock()
	sc, ok = s.scripts[name]
	s.mu.Unlock()
	return name, step, sc.offeredTo(offered), ok
}

// offeredTo returns the script without the optional tool calls the client
// does not offer, and without the steps that leaves empty. A nil offered
// keeps everything.
func (sc Script) offeredTo(offered map[string]bool) Script {
	if offered == nil {
		return sc
	}
	out := make(Script, 0, len(sc))
	for _, st := range sc {
		kept := st
		kept.Tools = nil
		for _, tc := range st.Tools {
			if !tc.Optional || offered[tc.Name] {
				kept.Tools = append(kept.Tools, tc)
			}
		}
		if len(st.Tools) > 0 && len(kept.Tools) == 0 && kept.Text == "" {
			continue
		}
		out = append(out, kept)
	}
	return out
}

// next picks the step that answers a conversation (see pick), fills its
// captures from body and records the request; on a request no script
// answers it fails the test and answers an error, and ok is false.
func (s *Server) next(w http.ResponseWriter, kind Kind, texts []string, model, aux []bool, offered map[string]bool, body []byte) (st Step, name string, step int, ok bool) {
	name, step, sc, found := s.pick(texts, model, aux, offered)
	if !found {
		s.fail(w, http.StatusBadRequest, "%s request with no known script marker (script %q)", kind, name)
		return Step{}, "", 0, false
	}
	if step >= len(sc) {
		s.fail(w, http.StatusBadRequest, "script %s has no step %d", name, step)
		return Step{}, "", 0, false
	}
	st, err := resolveStep(sc[step], body)
	if err != nil {
		s.fail(w, http.StatusBadRequest, "script %s step %d: %v", name, step, err)
		return Step{}, "", 0, false
	}
	return st, name, step, true
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// Capture is a value in a scripted tool input that the server fills from
// the request it answers: the first group of Pattern's last match in the
// request body (its JSON text). A script uses it for what only the client
// knows, such as the ID of a hide a hook returned. A request without a
// match fails the test.
type Capture struct{ Pattern string }

// resolve returns v with every Capture replaced from body.
func resolve(v any, body []byte) (any, error) {
	switch x := v.(type) {
	case Capture:
		re, err := regexp.Compile(x.Pattern)
		if err != nil {
			return nil, fmt.Errorf("capture %q: %w", x.Pattern, err)
		}
		all := re.FindAllSubmatch(body, -1)
		if len(all) == 0 || len(all[len(all)-1]) < 2 {
			return nil, fmt.Errorf("capture %q: no match in the request", x.Pattern)
		}
		return string(all[len(all)-1][1]), nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := resolve(e, body)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := resolve(e, body)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// resolveStep returns st with the Captures of its tool inputs filled.
func resolveStep(st Step, body []byte) (Step, error) {
	out := st
	out.Tools = make([]ToolCall, len(st.Tools))
	for i, tc := range st.Tools {
		in, err := resolve(tc.Input, body)
		if err != nil {
			return Step{}, fmt.Errorf("tool %s: %w", tc.Name, err)
		}
		out.Tools[i] = ToolCall{Name: tc.Name, Input: in}
	}
	return out, nil
}
