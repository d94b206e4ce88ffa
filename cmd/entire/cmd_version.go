package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "dev"
)

func newVersionCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Show build information",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			out := f.IO.Out
			fmt.Fprintf(out, "Entire CLI %s (%s)\n", version, commit)
			fmt.Fprintf(out, "Go version: %s\n", runtime.Version())
			fmt.Fprintf(out, "OS/Arch: %s/%s\n", runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
