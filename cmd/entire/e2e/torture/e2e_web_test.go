//go:build torture

package torture

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

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
			r := e2etest.NewSessionRepo(t)
			id := e2etest.WebSession(t, r, 20, size.mb)
			w := e2etest.StartWeb(t, r)
			c := e2etest.WebClient(t, w)
			timeline, dt := e2etest.FetchTime(t, c, w, "/")
			page, dc := e2etest.FetchTime(t, c, w, "/checkpoint/"+id)
			rss := e2etest.PeakRSS(w.Cmd.Process.Pid)
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
			w.Stop(t)
		})
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
			r := e2etest.NewSessionRepo(t)
			id := e2etest.WebSession(t, r, 20, mb)
			w := e2etest.StartWeb(t, r)
			defer w.Stop(t)
			c := e2etest.WebClient(t, w)
			errs := make(chan error, 20)
			for i := range 20 {
				path := "/checkpoint/" + id
				if i%4 == 3 {
					path += fmt.Sprintf("?turn=%d", i%5)
				}
				go func() {
					resp, err := c.Get(w.Base + path)
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
			rss := e2etest.PeakRSS(w.Cmd.Process.Pid)
			t.Logf("%d MB session, 20 concurrent loads: server peak RSS %d MB", mb, rss>>20)
			if rss > 200<<20 {
				t.Errorf("the server's peak RSS: %d MB", rss>>20)
			}
		})
	}
}
