package cli_test

import (
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// The tests of package cli_test run entire as a program too (e2etest).
func TestMain(m *testing.M) { e2etest.Main(m) }
