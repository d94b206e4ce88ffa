// Command entire-web serves the local web view of a repository's
// checkpoints; `entire web` runs it. It is a program of its own so that
// the syntax highlighter it links (whose lexer registry costs tens of
// milliseconds to build at start) is never paid by the hooks, which run
// `entire` while the agent waits.
package main

import (
	"os"

	"github.com/entirecli/entire/cmd/entire-web/webcli"
)

func main() { os.Exit(webcli.Main()) }
