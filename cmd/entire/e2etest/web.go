package e2etest

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// WebSession plays a session of turns turns whose tool results add up to
// about mb megabytes of transcript, commits it, and returns the
// checkpoint ID.
func WebSession(t *testing.T, r *SessionRepo, turns, mb int) string {
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

// WebClient is an HTTP client for the view (the token is in w.Base).
func WebClient(t *testing.T, w *WebServer) *http.Client {
	t.Helper()
	return &http.Client{Timeout: 30 * time.Second}
}

// FetchTime returns the body of path and the shortest of five times its
// whole HTML took to arrive.
func FetchTime(t *testing.T, c *http.Client, w *WebServer, path string) (string, time.Duration) {
	t.Helper()
	var best time.Duration
	var body []byte
	for i := 0; i < 5; i++ {
		start := time.Now()
		resp, err := c.Get(w.Base + path)
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

// PeakRSS is the largest peak resident set of a process and its children
// (entire and the entire-web it runs; Linux; 0 elsewhere).
func PeakRSS(pid int) int64 {
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
				peak = max(peak, PeakRSS(child))
			}
		}
	}
	return peak
}

// WebServer is `entire web --no-open` running in a repository.
type WebServer struct {
	Cmd    *exec.Cmd
	URL    string // as printed, with the token
	Base   string // http://127.0.0.1:<port>/<token>: where pages are
	Origin string // http://127.0.0.1:<port>
}

// StartWeb starts the built binary's web server in r's repository and
// reads the URL it prints first.
func StartWeb(t *testing.T, r *SessionRepo) *WebServer {
	t.Helper()
	cmd := exec.Command(EntireBin(), "web", "--no-open")
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
		return &WebServer{Cmd: cmd, URL: url, Base: base, Origin: base[:strings.LastIndex(base, "/")]}
	case <-time.After(20 * time.Second):
		t.Fatal("entire web printed no URL")
	}
	return nil
}

// Stop sends Ctrl-C and expects a clean exit.
func (w *WebServer) Stop(t *testing.T) {
	t.Helper()
	w.Cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- w.Cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("entire web after Ctrl-C: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("entire web did not stop on Ctrl-C")
	}
}
