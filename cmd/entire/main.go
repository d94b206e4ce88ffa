// Command entire records what AI coding agents do in a git repository and
// lets people rewind, resume, explain and share that work.
package main

import (
	"os"

	"github.com/entirecli/entire/cmd/entire/cli"
)

func main() { os.Exit(cli.Main()) }
