//go:build browser

package browser

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// hostileSession plays a session whose prompt and tool output hold markup,
// with a subagent task, two turns and a commit; it returns the
// checkpoint ID.
func hostileSession(t *testing.T, r *e2etest.SessionRepo) string {
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
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_bash", "content": "<html><script>window.pwned=1</script></html>\n" + e2etest.Announced}}}},
		map[string]any{"type": "assistant", "uuid": "a-task", "message": map[string]any{"id": "m-task", "role": "assistant",
			"usage":   map[string]any{"input_tokens": 900, "output_tokens": 120},
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_task", "name": "Agent", "input": taskInput}}}},
		map[string]any{"type": "assistant", "uuid": "a-sub", "isSidechain": true, "message": map[string]any{"id": "m-sub", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": "The subagent found three tags."}}}},
	)
	r.Hook("pre-task", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "toolu_task", "tool_input": taskInput})
	r.Hook("post-task", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_use_id": "toolu_task", "tool_input": taskInput,
		"tool_response": map[string]any{"status": "completed", "agentId": "ag1", "content": []any{map[string]any{"type": "text", "text": e2etest.SubagentFinal}}}})
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
	r := e2etest.NewSessionRepo(t)
	id := hostileSession(t, r)
	w := e2etest.StartWeb(t, r)
	defer w.Stop(t)

	resp, err := http.Get(w.Origin + "/checkpoint/" + id)
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
	must("open the printed URL", chromedp.Do(ctx, chromedp.Navigate(w.URL), chromedp.WaitVisible(chromedp.CSS("ol.timeline"))))
	body := text(`document.querySelector("main").innerText`)
	shot("timeline.png")
	if !strings.Contains(body, "Add a parser for <img src=x onerror=alert(1)> tags") || !strings.Contains(body, "Checkpoint "+id) {
		t.Errorf("the timeline:\n%s", body)
	}
	if n := text(`String(document.querySelectorAll("img").length)`); n != "0" {
		t.Errorf("the timeline has %s img elements: the prompt's markup became one", n)
	}
	must("open the checkpoint", chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[href$="/checkpoint/`+id+`"]`)), chromedp.WaitVisible(chromedp.CSS("section.session"))))
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
	must("open the active session", chromedp.Do(ctx, chromedp.Navigate(w.Base+"/"), chromedp.WaitVisible(chromedp.CSS("li.cp.temporary a")),
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
