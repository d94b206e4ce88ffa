package commits

import (
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
