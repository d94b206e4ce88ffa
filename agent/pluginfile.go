package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/internal/atomicfile"
)

// PluginFile is a source file that Entire writes into a repository for an
// agent that takes in-process plugins instead of command hooks (OpenCode's
// .opencode/plugins/entire.ts, Pi's .pi/extensions/entire/index.ts). The
// file is Entire's alone: it carries Marker on its first line, install
// writes it whole and uninstall removes it; a file at Path without the
// marker is the user's and is never touched.
type PluginFile struct {
	// Path is the file, relative to the repository root, with forward
	// slashes.
	Path string
	// Marker is the text of the file's first line that says it is
	// Entire's.
	Marker string
	// Source is the plugin's source, in which CommandPlaceholder stands
	// for the command that runs `entire` (a JSON array of strings).
	Source []byte
}

// CommandPlaceholder is replaced in PluginFile.Source by the JSON array
// of the program and arguments that run entire: ["entire"], or for a
// local-dev install `go run <root>/cmd/entire/main.go`.
const CommandPlaceholder = "__ENTIRE_COMMAND__"

// render returns the file's content for repoRoot.
func (p PluginFile) render(repoRoot string, localDev bool) []byte {
	argv := []string{"entire"}
	if localDev {
		argv = []string{"go", "run", filepath.Join(repoRoot, "cmd", "entire", "main.go")}
	}
	cmd, _ := json.Marshal(argv)
	return bytes.ReplaceAll(p.Source, []byte(CommandPlaceholder), cmd)
}

// owned reports whether data is Entire's plugin (its first line holds the
// marker).
func (p PluginFile) owned(data []byte) bool {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	return bytes.Contains(first, []byte(p.Marker))
}

// read returns the file's content, nil when it does not exist.
func (p PluginFile) read(repoRoot string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(p.Path)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.Path, err)
	}
	return data, nil
}

// Install writes the plugin into repoRoot unless it is there as it would
// be written, and returns 1 when it wrote it. A file at Path that is not
// Entire's is an error wrapping ErrInvalidSettings, and is left as it is.
func (p PluginFile) Install(repoRoot string, opts HookInstallOptions) (int, error) {
	want := p.render(repoRoot, opts.LocalDev)
	have, err := p.read(repoRoot)
	if err != nil {
		return 0, err
	}
	if have != nil && !p.owned(have) {
		return 0, fmt.Errorf("%s: %w: the file is not Entire's (remove or rename it)", p.Path, ErrInvalidSettings)
	}
	if bytes.Equal(have, want) {
		return 0, nil
	}
	path := filepath.Join(repoRoot, filepath.FromSlash(p.Path))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, fmt.Errorf("write %s: %w", p.Path, err)
	}
	if err := atomicfile.Write(path, want, 0o644); err != nil {
		return 0, fmt.Errorf("write %s: %w", p.Path, err)
	}
	return 1, nil
}

// Uninstall removes the plugin when it is Entire's; directories enable
// created are removed by the caller once empty. A missing file is not an
// error.
func (p PluginFile) Uninstall(repoRoot string) error {
	have, err := p.read(repoRoot)
	if err != nil || have == nil || !p.owned(have) {
		return err
	}
	if err := os.Remove(filepath.Join(repoRoot, filepath.FromSlash(p.Path))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", p.Path, err)
	}
	return nil
}

// Installed reports whether repoRoot has Entire's plugin at Path.
func (p PluginFile) Installed(repoRoot string) (bool, error) {
	have, err := p.read(repoRoot)
	if err != nil {
		return false, err
	}
	return have != nil && p.owned(have), nil
}

// PluginMarker returns the first line of a plugin file written for agent
// name: a comment that says who wrote it and how to remove it.
func PluginMarker(name AgentName) string {
	return "// entire: records this " + string(name) + " session (written by `entire enable`; `entire disable --uninstall` removes it)"
}

// TrimWrappingQuotes returns s without one pair of double quotes around it
// (OpenCode's `run` quotes the message it is given), s otherwise.
func TrimWrappingQuotes(s string) string {
	if len(s) >= 2 && strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) && !strings.Contains(s[1:len(s)-1], `"`) {
		return s[1 : len(s)-1]
	}
	return s
}
