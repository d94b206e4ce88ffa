// Package search is the end-to-end tier of entire search and of the web
// view's blame and search pages: its test binary is entire-web too.
package search

import (
	"testing"

	"github.com/entirecli/entire/cmd/entire-web/webcli"
	"github.com/entirecli/entire/cmd/entire/e2etest"
)

func TestMain(m *testing.M) {
	e2etest.Main(m, e2etest.Program{Name: "entire-web", Main: webcli.Main})
}
