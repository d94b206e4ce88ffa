package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at build time with -ldflags "-X github.com/entirecli/entire/cmd/entire/cli.version=... -X github.com/entirecli/entire/cmd/entire/cli.commit=...".
// Without them, buildVersion falls back to what the Go toolchain stamped
// into the binary: a `go build` or `go install` inside a git checkout
// (scripts/install.sh) records the commit.
var (
	version = "dev"
	commit  = "dev"
)

// buildVersion returns the version and the commit the binary was built
// from: the -ldflags values when set, else the module version and the VCS
// revision recorded by the Go toolchain ("-dirty" when the work tree had
// changes), else "dev".
func buildVersion() (ver, rev string) {
	ver, rev = version, commit
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ver, rev
	}
	if ver == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		ver = info.Main.Version
	}
	if rev != "dev" {
		return ver, rev
	}
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "dev" && modified {
		rev += "-dirty"
	}
	return ver, rev
}

// versionText is what `entire version` and `entire --version` print.
func versionText() string {
	ver, rev := buildVersion()
	return fmt.Sprintf("Entire CLI %s (%s)\nGo version: %s\nOS/Arch: %s/%s\n", ver, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Show build information",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprint(f.IO.Out, versionText())
			return nil
		},
	}
}
