package redact

import (
	"runtime"
	"strings"
	"sync"
)

// Large texts (a tool's output of tens of megabytes) are scanned in parts
// on every core. Parts end at line ends, and a window of lines around each
// cut is scanned again whole. Each scan is trusted only where it saw the
// text around a finding as one scan of the whole text would: a part for
// the findings more than half a window from its cuts, a window for those
// within half a window of its cut. So a secret across a cut, or one whose
// rule needs context from before the cut (a keyword on the line above), is
// found as in one scan, and a private key a scan's edge cuts in two is not
// taken for lines of random text.
const (
	// parallelAbove is the smallest text scanned in parts.
	parallelAbove = 4 << 20
	// minPart is the smallest part a text is cut into.
	minPart = 2 << 20
	// cutWindow is how far the window scanned around a cut reaches on
	// either side (then to the nearest line end): far beyond the longest
	// secret or rule context (a PEM private key is a few kilobytes).
	cutWindow = 256 << 10
)

// detectText is detect, in parts when s is large and there is more than
// one core.
func (r *Redactor) detectText(s string, entropy bool) []Finding {
	procs := runtime.GOMAXPROCS(0)
	if len(s) < parallelAbove || procs < 2 {
		return r.detect(s, entropy)
	}
	return r.detectInParts(s, entropy, min(procs, len(s)/minPart), cutWindow)
}

// detectInParts scans s in about n parts cut at line ends, in parallel, and
// the window of lines within window bytes around each cut. It scans s in
// one piece when it has too few line ends to cut.
func (r *Redactor) detectInParts(s string, entropy bool, n, window int) []Finding {
	cuts := lineCuts(s, n)
	if len(cuts) == 0 {
		return r.detect(s, entropy)
	}
	// Jobs: the parts, then the windows around the cuts. A job keeps the
	// findings that end after from and start before to.
	margin := window / 2
	type job struct{ start, end, from, to int }
	var jobs []job
	last := 0
	for _, c := range append(cuts, len(s)) {
		from, to := last+margin, c-margin
		if last == 0 {
			from = 0
		}
		if c == len(s) {
			to = len(s) + 1
		}
		jobs = append(jobs, job{start: last, end: c, from: from, to: to})
		last = c
	}
	for _, c := range cuts {
		jobs = append(jobs, job{start: lineStart(s, max(c-window, 0)), end: lineEnd(s, min(c+window, len(s))),
			from: c - margin, to: c + margin})
	}
	found := make([][]Finding, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				isPart := i < len(cuts)+1
				var kept []Finding
				for _, f := range r.detect(s[j.start:j.end], entropy) {
					f.Start += j.start
					f.End += j.start
					// A part keeps what lies in its inner range, a window
					// what reaches into the range around its cut.
					if isPart && f.Start >= j.from && f.End <= j.to ||
						!isPart && f.End > j.from && f.Start < j.to {
						kept = append(kept, f)
					}
				}
				found[i] = kept
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	var all []Finding
	for _, fs := range found {
		all = append(all, fs...)
	}
	return sortFindings(all)
}

// lineCuts returns up to n-1 offsets that cut s into about n parts, each
// just past a '\n'; none when s has no line end to cut at.
func lineCuts(s string, n int) []int {
	var cuts []int
	last := 0
	for i := 1; i < n; i++ {
		at := len(s) * i / n
		if at <= last {
			continue
		}
		c := lineEnd(s, at)
		if c >= len(s) {
			break
		}
		if c > last {
			cuts = append(cuts, c)
			last = c
		}
	}
	return cuts
}

// lineEnd returns the offset just past the first '\n' at or after i, or
// len(s).
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// lineStart returns the offset of the line that holds s[i]: just past the
// last '\n' before i, or 0.
func lineStart(s string, i int) int {
	return strings.LastIndexByte(s[:i], '\n') + 1
}
