package sessions

import (
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// TestMain runs the tier; the test binary is also entire-agent-acme, the
// fake external agent (externaltest), on the tests' PATH.
func TestMain(m *testing.M) {
	e2etest.Main(m, e2etest.AcmeProgram)
}
