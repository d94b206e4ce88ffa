package webserver

import (
	"bytes"
	"context"
	"net/http"
	"runtime"

	"golang.org/x/sync/singleflight"
)

// A page of a large session costs tens of megabytes while it is built (its
// transcript read a window at a time, its diff highlighted). Twenty loads
// at once, each building its own copy, drove the server past 600 MB and
// made one answer 500. So loads of the same page share one rendering (the
// one in flight), and at most renderSlots pages render at once; the others
// wait for a slot, as long as their client does.

// renderSlots bounds the pages rendered at once.
func renderSlots() int { return max(2, min(runtime.NumCPU(), 4)) }

// renderedPage is a page rendered once for every load that asked for it.
type renderedPage struct {
	status int
	header http.Header
	body   []byte
}

// pageRecorder is the http.ResponseWriter a page renders into.
type pageRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (p *pageRecorder) Header() http.Header { return p.header }

func (p *pageRecorder) WriteHeader(status int) {
	if p.status == 0 {
		p.status = status
	}
}

func (p *pageRecorder) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	return p.body.Write(b)
}

// gate is the bound on pages rendered at once and the sharing of a page
// among the loads that ask for it together.
type gate struct {
	slots  chan struct{}
	flight singleflight.Group
}

func newGate() *gate { return &gate{slots: make(chan struct{}, renderSlots())} }

// serve answers r with the page next renders, shared with the loads of
// the same URL in flight; a load whose client leaves while it waits for a
// slot gets nothing.
func (g *gate) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	key := r.Method + " " + r.URL.RequestURI()
	ch := g.flight.DoChan(key, func() (any, error) {
		select {
		case g.slots <- struct{}{}:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
		defer func() { <-g.slots }()
		rec := &pageRecorder{header: http.Header{}}
		// Rendered for every load that waits for it: the first client
		// leaving does not cut it short for the others.
		next.ServeHTTP(rec, r.WithContext(context.WithoutCancel(r.Context())))
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		return &renderedPage{status: rec.status, header: rec.header, body: rec.body.Bytes()}, nil
	})
	var res singleflight.Result
	select {
	case res = <-ch:
	case <-r.Context().Done():
		return
	}
	if res.Err != nil {
		// The load that rendered for the others went away while it
		// waited: render again for this one.
		if r.Context().Err() == nil {
			g.serve(w, r, next)
		}
		return
	}
	page := res.Val.(*renderedPage)
	h := w.Header()
	for k, v := range page.header {
		h[k] = v
	}
	w.WriteHeader(page.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(page.body)
	}
}
