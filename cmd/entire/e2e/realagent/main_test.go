//go:build realagent

package realagent

import (
	"fmt"
	"os"
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

func TestMain(m *testing.M) {
	// The real clients' tests mostly wait (a client's start, the model
	// server): twice GOMAXPROCS at once keep the cores busy.
	code := e2etest.RunParallel(m, 2)
	if summary, _ := hookTimes.summary(); summary != "" {
		// The hook times as the clients reported them; go test keeps a
		// passing package's output to itself, so CI names a file to
		// print.
		summary = "real-agent hook wall times (as the clients report them):\n" + summary
		fmt.Print(summary)
		if p := os.Getenv("ENTIRE_HOOK_TIMES"); p != "" {
			os.WriteFile(p, []byte(summary), 0o644)
		}
	}
	os.Exit(code)
}
