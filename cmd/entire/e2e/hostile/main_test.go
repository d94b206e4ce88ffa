//go:build torture

// Package hostile is the end-to-end tests of broken and hostile input, in
// the torture tier: malformed hook payloads, transcripts that point out of
// their place or hold terminal escapes, corrupt checkpoint metadata, hooks
// that fail or panic, bad command arguments. Each must give one clear line
// and the exit the caller expects, and lose nothing saved.
package hostile

import (
	"testing"

	"github.com/entirecli/entire/cmd/entire/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m, e2etest.AcmeProgram) }
