package search

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// get fetches a page of the web view and returns its body.
func get(t *testing.T, w *e2etest.WebServer, path string) (string, int) {
	t.Helper()
	resp, err := e2etest.WebClient(t, w).Get(w.Base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), resp.StatusCode
}

// TestWebShowsBlameAndSearch serves a file's blame (lines coloured by
// session, the prompt on hover, the checkpoint a click away, the page
// escaping what the file holds) and the search page.
func TestWebShowsBlameAndSearch(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("write the <b>greeter</b>", map[string]string{"greet.go": "package greet\n\nconst Hello = \"<script>alert(1)</script>\"\n"})
	b := r.WithSession("sess-2")
	b.PlayTurn("add a farewell", map[string]string{"bye.go": "package greet\n\nconst Bye = \"bye\"\n"})
	r.MustGit("add", "-A")
	r.MustGit("commit", "-q", "-m", "greet")
	id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
	w := e2etest.StartWeb(t, r)

	page, code := get(t, w, "/blame?path=greet.go")
	if code != http.StatusOK {
		t.Fatalf("blame page: %d\n%s", code, page)
	}
	for _, want := range []string{`class="s0"`, "turn 1", "/checkpoint/" + id + "#turn-1", "session 1 ", "write the &lt;b&gt;greeter&lt;/b&gt;", "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		want = strings.Replace(want, "session 1 ", "session sess-1, turn 1", 1)
		if !strings.Contains(page, want) {
			t.Errorf("blame page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<b>greeter") {
		t.Error("blame page does not escape the file or the prompt")
	}
	if page, code := get(t, w, "/blame?path=../etc/passwd"); code != http.StatusBadRequest {
		t.Errorf("blame of a path outside: %d\n%s", code, page)
	}
	if _, code := get(t, w, "/blame?path=nope.go"); code != http.StatusNotFound {
		t.Errorf("blame of a missing file: %d", code)
	}
	cp, _ := get(t, w, "/checkpoint/"+id)
	if !strings.Contains(cp, "/blame?path=greet.go") {
		t.Error("the checkpoint page has no blame link")
	}

	page, code = get(t, w, "/search?q="+url.QueryEscape("farewell"))
	if code != http.StatusOK || !strings.Contains(page, "/checkpoint/"+id) || !strings.Contains(page, "sess-2") {
		t.Errorf("search page: %d\n%s", code, page)
	}
	if page, _ := get(t, w, "/search?q=zebra"); !strings.Contains(page, "No matches.") {
		t.Errorf("search without hits:\n%s", page)
	}
}
