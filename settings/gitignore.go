package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/atomicfile"
)

// GitignoreEntries returns the lines EnsureDir keeps in .entire/.gitignore:
// the files under .entire/ that must never be committed.
func GitignoreEntries() []string {
	return []string{"tmp/", "settings.local.json", "metadata/", "logs/"}
}

// EnsureDir creates <repoRoot>/.entire (0755) and makes sure
// .entire/.gitignore contains every GitignoreEntries line: each missing
// entry is appended on its own line (an entry counts as present if the file
// contains it as a substring, as Entire 0.4.x does). Existing content is
// kept. It reports whether it wrote anything; a second call returns false.
func EnsureDir(repoRoot string) (bool, error) {
	dir := filepath.Join(repoRoot, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, ".gitignore")
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	content := string(cur)
	var add strings.Builder
	for _, e := range GitignoreEntries() {
		if !strings.Contains(content, e) {
			add.WriteString(e + "\n")
		}
	}
	if add.Len() == 0 {
		return false, nil
	}
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	if err := atomicfile.Write(path, []byte(content+add.String()), 0o644); err != nil {
		return false, err
	}
	return true, nil
}
