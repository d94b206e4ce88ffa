//go:build torture

package torture

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `entire --version` prints what `entire version` does, and both name the
// commit a binary built as scripts/install.sh builds it comes from (its
// -ldflags name a variable of the cli package).
func TestVersionNamesTheCommit(t *testing.T) {
	t.Parallel()
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not built from a git checkout")
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "scripts", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	flag := regexp.MustCompile(`-X ([\w./-]+)=\$commit`).FindSubmatch(script)
	if flag == nil {
		t.Fatal("scripts/install.sh stamps no commit")
	}
	bin := filepath.Join(t.TempDir(), "entire")
	build := exec.Command("go", "build", "-ldflags", "-X "+string(flag[1])+"="+strings.TrimSpace(string(head)), "-o", bin, "github.com/entirecli/entire/cmd/entire")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build as install.sh does: %v\n%s", err, out)
	}
	run := func(arg string) string {
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("entire %s: %v", arg, err)
		}
		return string(out)
	}
	out := run("version")
	first := strings.SplitN(out, "\n", 2)[0]
	if !regexp.MustCompile(`^Entire CLI \S+ \([0-9a-f]{40}(-dirty)?\)$`).MatchString(first) || !strings.Contains(first, strings.TrimSpace(string(head))) {
		t.Errorf("version: %q, built from %s", first, head)
	}
	if long := run("--version"); long != out {
		t.Errorf("--version:\n%s\nwant\n%s", long, out)
	}
}
