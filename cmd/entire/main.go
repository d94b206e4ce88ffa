// Command entire records what AI coding agents do in a git repository and
// lets people rewind, resume, explain and share that work.
package main

import "os"

func main() { os.Exit(int(run(os.Args[1:], newFactory()))) }
