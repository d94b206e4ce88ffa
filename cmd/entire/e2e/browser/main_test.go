//go:build browser

package browser

import (
	"testing"

	"github.com/entirecli/entire/cmd/entire-web/webcli"
	"github.com/entirecli/entire/cmd/entire/e2etest"
)

// The tier runs entire web too.
func TestMain(m *testing.M) {
	e2etest.Main(m, e2etest.Program{Name: "entire-web", Main: webcli.Main})
}
