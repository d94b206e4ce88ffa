// Command testbudget reads `go test -json` on its standard input, prints
// what a person needs from it (each package's result and time, the output
// of every failed test, build failures), and exits non-zero when a test or
// a build failed, when no package ran, or when a time budget was exceeded:
// the whole run's wall time (-total) or one package's (-package), naming
// the package. CI pipes its test commands through it:
//
//	go test -json ./... | testbudget -total 4m -package 2m
//
// A budget of 0 is not checked.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	total := flag.Duration("total", 0, "the whole run's wall-time budget")
	perPackage := flag.Duration("package", 0, "each package's time budget")
	name := flag.String("name", "go test", "what the run is called in the summary")
	flag.Parse()
	start := time.Now()
	r, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testbudget: %v\n", err)
		os.Exit(2)
	}
	os.Exit(r.verdict(os.Stdout, *name, time.Since(start), *total, *perPackage))
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// run is what summarize learned of a whole run.
type run struct {
	packages map[string]time.Duration // package -> elapsed, those that ended
	failed   []string                 // failed packages
	lines    int                      // lines that were not test2json events
}

// summarize reads events from in and writes to out each package's
// result, the output of failed tests and packages, and any line that is
// not an event (a build failure).
func summarize(in io.Reader, out io.Writer) (*run, error) {
	r := &run{packages: map[string]time.Duration{}}
	// The output of each running test and package, printed if it fails.
	pending := map[string]*strings.Builder{}
	key := func(e event) string { return e.Package + "\x00" + e.Test }
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			r.lines++
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "output":
			b := pending[key(e)]
			if b == nil {
				b = &strings.Builder{}
				pending[key(e)] = b
			}
			if b.Len() < 1<<20 {
				b.WriteString(e.Output)
			}
		case "pass", "skip":
			if e.Test == "" {
				r.packages[e.Package] = seconds(e.Elapsed)
				fmt.Fprintf(out, "ok    %-60s %6.1fs\n", e.Package, e.Elapsed)
			}
			delete(pending, key(e))
		case "fail":
			if b := pending[key(e)]; b != nil {
				fmt.Fprint(out, b.String())
			}
			delete(pending, key(e))
			if e.Test == "" {
				r.packages[e.Package] = seconds(e.Elapsed)
				r.failed = append(r.failed, e.Package)
				fmt.Fprintf(out, "FAIL  %-60s %6.1fs\n", e.Package, e.Elapsed)
			}
		}
	}
	return r, sc.Err()
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// verdict prints the slowest packages and every broken budget, and
// returns the exit code.
func (r *run) verdict(out io.Writer, name string, wall, total, perPackage time.Duration) int {
	code := 0
	names := make([]string, 0, len(r.packages))
	for p := range r.packages {
		names = append(names, p)
	}
	sort.Slice(names, func(i, j int) bool { return r.packages[names[i]] > r.packages[names[j]] })
	fmt.Fprintf(out, "%s: %d packages in %s", name, len(names), wall.Round(time.Second))
	if len(names) > 0 {
		fmt.Fprintf(out, "; slowest %s (%s)", names[0], r.packages[names[0]].Round(100*time.Millisecond))
	}
	fmt.Fprintln(out)
	if len(names) == 0 {
		fmt.Fprintf(out, "%s: no package ran\n", name)
		code = 1
	}
	if len(r.failed) > 0 {
		fmt.Fprintf(out, "%s: failed: %s\n", name, strings.Join(r.failed, " "))
		code = 1
	} else if r.lines > 0 && len(names) == 0 {
		code = 1
	}
	if total > 0 && wall > total {
		fmt.Fprintf(out, "%s: over budget: took %s, budget %s\n", name, wall.Round(time.Second), total)
		code = 1
	}
	for _, p := range names {
		if perPackage > 0 && r.packages[p] > perPackage {
			fmt.Fprintf(out, "%s: over budget: package %s took %s, budget %s\n", name, p, r.packages[p].Round(100*time.Millisecond), perPackage)
			code = 1
		}
	}
	return code
}
