package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// webServer is `entire web --no-open` running in a repository.
type webServer struct {
	cmd    *exec.Cmd
	url    string // as printed, with the token
	base   string // http://127.0.0.1:<port>/<token>: where pages are
	origin string // http://127.0.0.1:<port>
}

// startWeb starts the built binary's web server in r's repository and
// reads the URL it prints first.
func startWeb(t *testing.T, r *SessionRepo) *webServer {
	t.Helper()
	cmd := exec.Command(entireBin, "web", "--no-open")
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // entire-web follows it
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "http://127.0.0.1:") {
				lines <- sc.Text()
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case url := <-lines:
		base := strings.TrimSuffix(url, "/")
		return &webServer{cmd: cmd, url: url, base: base, origin: base[:strings.LastIndex(base, "/")]}
	case <-time.After(20 * time.Second):
		t.Fatal("entire web printed no URL")
	}
	return nil
}

// stop sends Ctrl-C and expects a clean exit.
func (w *webServer) stop(t *testing.T) {
	t.Helper()
	w.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("entire web after Ctrl-C: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("entire web did not stop on Ctrl-C")
	}
}

// announced is what a command run by the agent printed to announce the
// entities it touched (render references): a note that exists, a
// checkpoint that does not, and an undo point whose preview carries markup.
const announced = `::entire-ref/v1::{"v":1,"type":"note","id":"build-cmd","intent":"referenced"}
::entire-ref/v1::{"v":1,"type":"checkpoint","id":"0123456789ab","intent":"referenced"}
::entire-ref/v1::{"v":1,"type":"undo_point","id":"u-1","intent":"created","preview":{"title":"<i>before</i> the rewind"}}`

// hostileSession plays a session whose prompt and tool output hold markup,
// with a subagent task, two turns and a commit; it returns the
// checkpoint ID.
func hostileSession(t *testing.T, r *SessionRepo) string {
	t.Helper()
	gittest.Git(t, r.Dir, "checkout", "-q", "-b", "feature")
	if _, errOut, code := r.Entire("note", "save", "build-cmd", "run <b>make all</b> before committing"); code != 0 {
		t.Fatalf("entire note save: %s", errOut)
	}
	r.Hook("session-start", map[string]any{"source": "startup"})
	r.StartTurn(r.Dir, "Add a parser for <img src=x onerror=alert(1)> tags")
	taskInput := map[string]any{"description": "Survey the tags", "prompt": "List the tags", "subagent_type": "Explore"}
	r.AppendTranscript(
		map[string]any{"type": "assistant", "uuid": "a-bash", "message": map[string]any{"id": "m-bash", "role": "assistant",
			"usage":   map[string]any{"input_tokens": 1200, "output_tokens": 300},
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_bash", "name": "Bash", "input": map[string]any{"command": "cat page.html"}}}}},
		map[string]any{"type": "user", "uuid": "u-bash", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_bash", "content": "<html><script>window.pwned=1</script></html>\n" + announced}}}},
		map[string]any{"type": "assistant", "uuid": "a-task", "message": map[string]any{"id": "m-task", "role": "assistant",
			"usage":   map[string]any{"input_tokens": 900, "output_tokens": 120},
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_task", "name": "Agent", "input": taskInput}}}},
		map[string]any{"type": "assistant", "uuid": "a-sub", "isSidechain": true, "message": map[string]any{"id": "m-sub", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": "The subagent found three tags."}}}},
	)
	r.Hook("pre-task", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "toolu_task", "tool_input": taskInput})
	r.Hook("post-task", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_use_id": "toolu_task", "tool_input": taskInput,
		"tool_response": map[string]any{"status": "completed", "agentId": "ag1", "content": []any{map[string]any{"type": "text", "text": subagentFinal}}}})
	r.AppendTranscript(map[string]any{"type": "user", "uuid": "u-task", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_task", "content": "Three tags: a, b, img."}}}})
	r.WriteFiles(map[string]string{"parser.go": "package parser\n\n// Parse reads tags.\nfunc Parse(s string) []string { return nil }\n"})
	r.EndTurn(r.Dir, "Added the parser.")
	r.PlayTurn("Document the parser", map[string]string{"README.md": "# parser\n\nReads tags.\n"})
	return r.CommitAll("Add the tag parser")
}

// chromiumPath finds Chromium; without it the browser tier skips, unless
// CI is set.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("the browser tier needs Chromium: run scripts/install-chromium.sh")
	}
	t.Skip("browser tier skipped: no Chromium (scripts/install-chromium.sh installs it)")
	return ""
}

// screenshotDir is where the browser tier saves its screenshots.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("ENTIRE_WEB_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "entire-web-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The web view in a real browser: the timeline shows the prompts (markup
// as text), the checkpoint page its files, diff, chart and nested
// subagent, a click opens a tool call whose <script> output stays text,
// and a request without the token is refused.
func TestWebInABrowser(t *testing.T) {
	t.Parallel()
	chrome := chromiumPath(t)
	r := NewSessionRepo(t)
	id := hostileSession(t, r)
	w := startWeb(t, r)
	defer w.stop(t)

	resp, err := http.Get(w.origin + "/checkpoint/" + id)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a request without the token: %d", resp.StatusCode)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	var dialogs atomic.Int32
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if _, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
		}
	}))
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	shots := screenshotDir(t)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		must(expr, err)
		return v
	}
	shot := func(name string) []byte {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		must("screenshot", err)
		must("save screenshot", os.WriteFile(filepath.Join(shots, name), png, 0o644))
		return png
	}
	must("open the printed URL", chromedp.Do(ctx, chromedp.Navigate(w.url), chromedp.WaitVisible(chromedp.CSS("ol.timeline"))))
	body := text(`document.querySelector("main").innerText`)
	shot("timeline.png")
	if !strings.Contains(body, "Add a parser for <img src=x onerror=alert(1)> tags") || !strings.Contains(body, "Checkpoint "+id) {
		t.Errorf("the timeline:\n%s", body)
	}
	if n := text(`String(document.querySelectorAll("img").length)`); n != "0" {
		t.Errorf("the timeline has %s img elements: the prompt's markup became one", n)
	}
	must("open the checkpoint", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[href="/checkpoint/`+id+`"]`)), chromedp.WaitVisible(chromedp.CSS("section.session"))))
	body = text(`document.querySelector("main").innerText`)
	for _, want := range []string{"parser.go", "README.md", "Files changed", "Add a parser for <img src=x onerror=alert(1)> tags", "Document the parser", "entire rewind --to", "build-cmd", "entire resume feature"} {
		if !strings.Contains(body, want) {
			t.Errorf("the checkpoint page lacks %q:\n%.3000s", want, body)
		}
	}
	if n := text(`String(document.querySelectorAll("svg.chart rect.bar").length)`); n != "2" {
		t.Errorf("the token chart has %s bars, want 2", n)
	}
	if sub := text(`Array.from(document.querySelectorAll("details.call .subagent")).map(e => e.textContent).join("|")`); !strings.Contains(sub, "The subagent found three tags.") ||
		!strings.Contains(sub, "Documented the layout of the project.") {
		t.Errorf("no subagent nested in its call, with its conclusion: %q", sub)
	}
	cards := text(`Array.from(document.querySelectorAll("li.card")).map(e => e.className + ": " + e.textContent.replace(/\s+/g, " ").trim()).join("|")`)
	for _, want := range []string{"card live: note build-cmd run <b>make all</b> before committing referenced",
		"card gone: checkpoint 0123456789ab the checkpoint no longer exists", "card preview: undo_point u-1 <i>before</i> the rewind (as recorded) created"} {
		if !strings.Contains(cards, want) {
			t.Errorf("the reference cards lack %q: %q", want, cards)
		}
	}
	if href := text(`document.querySelector("li.card.live a").getAttribute("href")`); href != "#note-build-cmd" {
		t.Errorf("the note's card links to %q", href)
	}
	if diff := text(`Array.from(document.querySelectorAll("table.diff")).map(e => e.textContent).join("|")`); !strings.Contains(diff, "func Parse(s string) []string") {
		t.Errorf("the diff: %q", diff)
	}
	if n := text(`String(document.querySelectorAll("details.call[open]").length)`); n != "0" {
		t.Errorf("%s tool calls open before a click", n)
	}
	must("expand the Bash call", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`details.call summary`))))
	output := text(`Array.from(document.querySelectorAll("details.call[open] pre.io")).map(e => e.innerText).join("|")`)
	if !strings.Contains(output, "<html><script>window.pwned=1</script></html>") {
		t.Errorf("the opened tool call: %q", output)
	}
	if pwned := text(`String(window.pwned)`); pwned != "undefined" || dialogs.Load() != 0 {
		t.Errorf("script from the transcript ran: window.pwned=%s, %d dialogs", pwned, dialogs.Load())
	}
	png := shot("checkpoint.png")

	// A turn after the commit: its session is active, uncommitted.
	r.PlayTurn("Add tests for <b>the parser</b>", map[string]string{"parser_test.go": "package parser\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {}\n"})
	must("open the active session", chromedp.Do(ctx, chromedp.Navigate(w.base+"/"), chromedp.WaitVisible(chromedp.CSS("li.cp.temporary a")),
		chromedp.Click(chromedp.CSS("li.cp.temporary a")), chromedp.WaitVisible(chromedp.CSS("section.diffs"))))
	body = text(`document.querySelector("main").innerText`)
	for _, want := range []string{"uncommitted", "Add tests for <b>the parser</b>", "parser_test.go", "func TestParse", "entire rewind --to"} {
		if !strings.Contains(body, want) {
			t.Errorf("the active session's page lacks %q:\n%.3000s", want, body)
		}
	}
	shot("session.png")
	t.Logf("screenshots in %s", shots)
	if p := os.Getenv("ENTIRE_WEB_README_SHOT"); p != "" {
		must("save the README's screenshot", os.WriteFile(p, png, 0o644))
	}
}

// webSession plays a session of turns turns whose tool results add up to
// about mb megabytes of transcript, commits it, and returns the
// checkpoint ID.
func webSession(t *testing.T, r *SessionRepo, turns, mb int) string {
	t.Helper()
	r.Hook("session-start", map[string]any{"source": "startup"})
	var log strings.Builder
	for i := 0; log.Len() < mb<<20/turns; i++ {
		fmt.Fprintf(&log, "[%06d] compiled pkg/module%03d in %d ms\n", i, i%997, i%300)
	}
	out := log.String()
	for n := 1; n <= turns; n++ {
		r.StartTurn(r.Dir, fmt.Sprintf("Build step %d and report", n))
		r.AppendTranscript(
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a-%d", n), "message": map[string]any{"id": fmt.Sprintf("m-%d", n), "role": "assistant",
				"usage":   map[string]any{"input_tokens": 1000 + n, "output_tokens": 200},
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", n), "name": "Bash", "input": map[string]any{"command": "make"}}}}},
			map[string]any{"type": "user", "uuid": fmt.Sprintf("u-%d", n), "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", n), "content": fmt.Sprintf("turn %d\n", n) + out}}}},
		)
		r.WriteFiles(map[string]string{fmt.Sprintf("step%02d.go", n): fmt.Sprintf("package steps\n\nconst Step%d = %d\n", n, n)})
		r.EndTurn(r.Dir, fmt.Sprintf("Step %d built.", n))
	}
	return r.CommitAll("Build the steps")
}

// webClient is an HTTP client for the view (the token is in w.base).
func webClient(t *testing.T, w *webServer) *http.Client {
	t.Helper()
	return &http.Client{Timeout: 30 * time.Second}
}

// fetchTime returns the body of path and the shortest of five times its
// whole HTML took to arrive.
func fetchTime(t *testing.T, c *http.Client, w *webServer, path string) (string, time.Duration) {
	t.Helper()
	var best time.Duration
	var body []byte
	for i := 0; i < 5; i++ {
		start := time.Now()
		resp, err := c.Get(w.base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		if i == 0 || d < best {
			best = d
		}
	}
	return string(body), best
}

// peakRSS is the largest peak resident set of a process and its children
// (entire and the entire-web it runs; Linux; 0 elsewhere).
func peakRSS(pid int) int64 {
	var peak int64
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				var kb int64
				fmt.Sscan(f[1], &kb)
				peak = kb << 10
			}
		}
	}
	// Each thread lists the children it forked.
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, c := range strings.Fields(string(b)) {
			if child, err := strconv.Atoi(c); err == nil {
				peak = max(peak, peakRSS(child))
			}
		}
	}
	return peak
}

// The timeline and the checkpoint page of a session of the shared bench's
// medium size (20 turns, 20 MB of transcript) each arrive whole in under
// 300 ms. With ENTIRE_WEB_LARGE=1, the large size too (120 MB): the
// checkpoint page's first 20 turns in under 1 s, the server under 150 MB.
// Not parallel: it measures while the package's other tests wait.
func TestWebPagesArriveQuickly(t *testing.T) {
	sizes := []struct {
		name  string
		mb    int
		bound time.Duration
	}{{"medium", 20, 300 * time.Millisecond}}
	if os.Getenv("ENTIRE_WEB_LARGE") != "" {
		sizes = append(sizes, struct {
			name  string
			mb    int
			bound time.Duration
		}{"large", 120, time.Second})
	}
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			r := NewSessionRepo(t)
			id := webSession(t, r, 20, size.mb)
			w := startWeb(t, r)
			c := webClient(t, w)
			timeline, dt := fetchTime(t, c, w, "/")
			page, dc := fetchTime(t, c, w, "/checkpoint/"+id)
			rss := peakRSS(w.cmd.Process.Pid)
			t.Logf("%s: timeline %s (%d bytes), checkpoint page %s (%d bytes), server peak RSS %d MB", size.name, dt, len(timeline), dc, len(page), rss>>20)
			if !strings.Contains(timeline, "Build step 1 and report") || !strings.Contains(page, "Turn 20") || !strings.Contains(page, "step20.go") {
				t.Errorf("the pages lack their content")
			}
			if size.name == "medium" && dt > size.bound {
				t.Errorf("the timeline took %s (bound %s)", dt, size.bound)
			}
			if dc > size.bound {
				t.Errorf("the checkpoint page took %s (bound %s)", dc, size.bound)
			}
			if rss > 150<<20 {
				t.Errorf("the server's peak RSS: %d MB", rss>>20)
			}
			w.stop(t)
		})
	}
}

// Without entire-web beside it or on PATH, `entire web` says in one line
// what to install; outside a repository it says that; bad flags reach
// neither.
func TestWebWithoutItsProgram(t *testing.T) {
	t.Parallel()
	alone := filepath.Join(t.TempDir(), "entire")
	b, err := os.ReadFile(entireBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	repo := gittest.InitWithCommit(t)
	cmd := exec.Command(alone, "web", "--no-open")
	cmd.Dir = repo
	cmd.Env = append(gittest.Env(t.TempDir()), "PATH="+t.TempDir()+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 || !strings.Contains(string(out), "entire web needs the entire-web program") {
		t.Errorf("entire web without entire-web: %v\n%s", err, out)
	}
	if _, errOut, code := RunEntire(t, t.TempDir(), nil, "", "web", "--no-open"); code != 1 || !strings.Contains(errOut, "not a git repository") {
		t.Errorf("entire web outside a repository: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := RunEntire(t, repo, nil, "", "web", "--port", "70000"); code != 1 || !strings.Contains(errOut, "--port must be between 0 and 65535") {
		t.Errorf("entire web --port 70000: exit %d\n%s", code, errOut)
	}
}

// Twenty loads of a checkpoint page at once (the same page, and pages of
// other turns) all arrive whole, and the server stays under 200 MB: loads
// of one page share one rendering, and at most a few render at a time.
// The medium session (20 MB) in the suite; with ENTIRE_WEB_LARGE=1 the
// large one (120 MB) too.
func TestWebConcurrentLoadsBounded(t *testing.T) {
	sizes := []int{20}
	if os.Getenv("ENTIRE_WEB_LARGE") != "" {
		sizes = append(sizes, 120)
	}
	for _, mb := range sizes {
		t.Run(fmt.Sprintf("%dMB", mb), func(t *testing.T) {
			r := NewSessionRepo(t)
			id := webSession(t, r, 20, mb)
			w := startWeb(t, r)
			defer w.stop(t)
			c := webClient(t, w)
			errs := make(chan error, 20)
			for i := range 20 {
				path := "/checkpoint/" + id
				if i%4 == 3 {
					path += fmt.Sprintf("?turn=%d", i%5)
				}
				go func() {
					resp, err := c.Get(w.base + path)
					if err != nil {
						errs <- err
						return
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err == nil && (resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "step20.go")) {
						err = fmt.Errorf("%s: %d (%d bytes)", path, resp.StatusCode, len(body))
					}
					errs <- err
				}()
			}
			for range 20 {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			rss := peakRSS(w.cmd.Process.Pid)
			t.Logf("%d MB session, 20 concurrent loads: server peak RSS %d MB", mb, rss>>20)
			if rss > 200<<20 {
				t.Errorf("the server's peak RSS: %d MB", rss>>20)
			}
		})
	}
}
