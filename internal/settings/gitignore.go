package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/internal/atomicfile"
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
// kept. It returns the text it appended (with the newline that ends a last
// line that had none), "" when it wrote nothing; a second call returns "".
// RemoveAppended takes that text out again.
func EnsureDir(repoRoot string) (string, error) {
	dir := filepath.Join(repoRoot, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, ".gitignore")
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	content := string(cur)
	var add strings.Builder
	for _, e := range GitignoreEntries() {
		if !strings.Contains(content, e) {
			add.WriteString(e + "\n")
		}
	}
	if add.Len() == 0 {
		return "", nil
	}
	appended := add.String()
	if content != "" && !strings.HasSuffix(content, "\n") {
		appended = "\n" + appended
	}
	if err := atomicfile.Rewrite(path, []byte(content+appended), 0o644); err != nil {
		return "", err
	}
	return appended, nil
}

// RemoveAppended takes appended, the text EnsureDir appended to the file at
// path, out of it again: from the end of the file when it is still there,
// else the last occurrence of each of its lines. Every other byte is kept.
// A missing file is left alone.
func RemoveAppended(path, appended string) error {
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || appended == "" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	content := string(cur)
	if strings.HasSuffix(content, appended) {
		content = strings.TrimSuffix(content, appended)
	} else {
		for _, line := range strings.Split(strings.Trim(appended, "\n"), "\n") {
			if i := strings.LastIndex("\n"+content, "\n"+line+"\n"); i >= 0 {
				content = content[:i] + content[i+len(line)+1:]
			}
		}
	}
	if content == string(cur) {
		return nil
	}
	if err := atomicfile.Rewrite(path, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// excludeComment heads the lines EnsureIgnored adds to info/exclude.
const excludeComment = "# entire: its working files, for checkouts without .entire/.gitignore"

// ExcludeEntries returns the lines EnsureIgnored keeps in
// <git-common-dir>/info/exclude: GitignoreEntries anchored at the work
// tree root (/.entire/tmp/, ...).
func ExcludeEntries() []string {
	var out []string
	for _, e := range GitignoreEntries() {
		out = append(out, "/"+Dir+"/"+e)
	}
	return out
}

// EnsureIgnored makes the files entire keeps under <repoRoot>/.entire
// (logs/, tmp/, ...) ignored in a checkout whose .entire/.gitignore lacks
// them (a linked worktree of an older commit, a branch from before
// `entire enable`), so that `git add -A` never commits them: each missing
// ExcludeEntries line is appended to <gitCommonDir>/info/exclude, which
// git reads in every worktree, once. A checkout whose .entire/.gitignore
// has every entry costs one small read and changes nothing. It reports
// whether it wrote; existing content and mode are kept.
func EnsureIgnored(repoRoot, gitCommonDir string) (bool, error) {
	if own, err := os.ReadFile(filepath.Join(repoRoot, Dir, ".gitignore")); err == nil && hasAll(string(own), GitignoreEntries(), false) {
		return false, nil
	}
	path := filepath.Join(gitCommonDir, "info", "exclude")
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	content := string(cur)
	if hasAll(content, ExcludeEntries(), true) {
		return false, nil
	}
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	if !hasLine(content, excludeComment) {
		content += excludeComment + "\n"
	}
	for _, e := range ExcludeEntries() {
		if !hasLine(content, e) {
			content += e + "\n"
		}
	}
	if err := atomicfile.Rewrite(path, []byte(content), 0o644); err != nil {
		return false, fmt.Errorf("ignore entire's files: %w", err)
	}
	return true, nil
}

// hasAll reports whether content has every entry: as a whole line when
// lines, else as a substring (the .entire/.gitignore rule of EnsureDir).
func hasAll(content string, entries []string, lines bool) bool {
	for _, e := range entries {
		if (lines && !hasLine(content, e)) || (!lines && !strings.Contains(content, e)) {
			return false
		}
	}
	return true
}

func hasLine(content, line string) bool {
	for _, l := range strings.Split(content, "\n") {
		if strings.TrimRight(l, "\r") == line {
			return true
		}
	}
	return false
}

// RemoveIgnored takes out of <gitCommonDir>/info/exclude the lines
// EnsureIgnored adds (its comment and ExcludeEntries), keeping every other
// byte and the file's mode. A missing file, or one without these lines, is
// left alone.
func RemoveIgnored(gitCommonDir string) error {
	path := filepath.Join(gitCommonDir, "info", "exclude")
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	ours := map[string]bool{excludeComment: true}
	for _, e := range ExcludeEntries() {
		ours[e] = true
	}
	var out strings.Builder
	rest := string(cur)
	for rest != "" {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		if !ours[strings.TrimRight(line, "\r\n")] {
			out.WriteString(line)
		}
	}
	if out.Len() == len(cur) {
		return nil
	}
	if err := atomicfile.Rewrite(path, []byte(out.String()), 0o644); err != nil {
		return fmt.Errorf("un-ignore entire's files: %w", err)
	}
	return nil
}
