package main

import (
	"strings"
	"testing"
	"time"
)

const sample = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestOK"}
{"Action":"output","Package":"m/a","Test":"TestOK","Output":"quiet\n"}
{"Action":"pass","Package":"m/a","Test":"TestOK","Elapsed":0.1}
{"Action":"pass","Package":"m/a","Elapsed":130.5}
{"Action":"run","Package":"m/b","Test":"TestBad"}
{"Action":"output","Package":"m/b","Test":"TestBad","Output":"    b_test.go:9: went wrong\n"}
{"Action":"fail","Package":"m/b","Test":"TestBad","Elapsed":0.2}
{"Action":"fail","Package":"m/b","Elapsed":1.5}
{"Action":"skip","Package":"m/c","Elapsed":0}
`

func TestSummaryNamesFailuresAndBudgets(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	r, err := summarize(strings.NewReader(sample), &out)
	if err != nil {
		t.Fatal(err)
	}
	code := r.verdict(&out, "go test", 3*time.Minute, 4*time.Minute, 2*time.Minute)
	got := out.String()
	for _, want := range []string{"went wrong", "FAIL  m/b", "failed: m/b", "package m/a took 2m10.5s, budget 2m0s", "slowest m/a"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "quiet") {
		t.Errorf("a passing test's output was printed:\n%s", got)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}

func TestSummaryPassesWithinBudget(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	r, _ := summarize(strings.NewReader(`{"Action":"pass","Package":"m/a","Elapsed":3}`+"\n"), &out)
	if code := r.verdict(&out, "go test", time.Minute, 4*time.Minute, 2*time.Minute); code != 0 {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
	r, _ = summarize(strings.NewReader(`{"Action":"pass","Package":"m/a","Elapsed":3}`+"\n"), &out)
	if code := r.verdict(&out, "go test", 5*time.Minute, 4*time.Minute, 0); code != 1 || !strings.Contains(out.String(), "took 5m0s, budget 4m0s") {
		t.Errorf("a run over the total budget: exit %d:\n%s", code, out.String())
	}
	r, _ = summarize(strings.NewReader("# m/x\nx.go:1: syntax error\n"), &out)
	if code := r.verdict(&out, "go test", time.Second, 0, 0); code != 1 {
		t.Errorf("a run where nothing ran: exit %d", code)
	}
}
