package opencode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/treecopy"
)

// OpenCode installs its plugin package, @opencode-ai/plugin, into every
// configuration directory it reads (the project's .opencode among them)
// that has no node_modules, and waits for that install before a session
// starts: seconds with the registry, 70 s of retries without it. The
// plugin entire writes needs nothing from that package, but writing it
// creates .opencode. So enable seeds .opencode with the package from a
// copy OpenCode installed before (its global configuration directory),
// or from ENTIRE_OPENCODE_PLUGIN_DEPS, without the network; with neither,
// it says what to run (EnableSpec.Note).

// EnvPluginDeps names a directory holding an installed @opencode-ai/plugin
// (node_modules, package.json, package-lock.json) that enable copies into
// .opencode; default OpenCode's global configuration directory.
const EnvPluginDeps = "ENTIRE_OPENCODE_PLUGIN_DEPS"

// configDir is the project's OpenCode configuration directory.
const configDir = ".opencode"

// depFiles are what OpenCode's own install writes into a configuration
// directory, and what seeding copies.
var depFiles = []string{"node_modules", "package.json", "package-lock.json"}

// generatedFiles are the files OpenCode writes into a configuration
// directory by itself: its dependency install and the .gitignore that
// keeps it out of git.
var generatedFiles = append([]string{".gitignore", "bun.lock"}, depFiles...)

// gitignore is the .gitignore seeding writes, as OpenCode writes it.
const gitignore = "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n"

// depsSource returns the directory whose installed plugin package seeding
// copies, "" when there is none.
func (a *Agent) depsSource() string {
	dir := a.EnvVar(EnvPluginDeps)
	if dir == "" {
		cfg := a.EnvVar("XDG_CONFIG_HOME")
		if cfg == "" || !filepath.IsAbs(cfg) {
			home, err := a.HomeDir()
			if err != nil {
				return ""
			}
			cfg = filepath.Join(home, ".config")
		}
		dir = filepath.Join(cfg, "opencode")
	}
	if fi, err := os.Stat(filepath.Join(dir, "node_modules", "@opencode-ai", "plugin", "package.json")); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	for _, f := range depFiles[1:] {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return ""
		}
	}
	return dir
}

// seedDeps copies the plugin package into <repoRoot>/.opencode when it
// has no node_modules, recording what it creates in log, and reports
// whether the directory has one now.
func (a *Agent) seedDeps(repoRoot string, log *agent.InstallLog) (bool, error) {
	dst := filepath.Join(repoRoot, configDir)
	if fi, err := os.Stat(dst); err != nil || !fi.IsDir() {
		return false, nil // no .opencode: nothing makes OpenCode install into it
	}
	if _, err := os.Stat(filepath.Join(dst, "node_modules")); err == nil {
		return true, nil
	}
	src := a.depsSource()
	if src == "" {
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(dst, ".gitignore")); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(filepath.Join(dst, ".gitignore"), []byte(gitignore), 0o644); err != nil {
			return false, fmt.Errorf("seed %s: %w", configDir, err)
		}
		log.AddCreated(configDir + "/.gitignore")
	}
	for _, f := range depFiles {
		to := filepath.Join(dst, f)
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		// Copied, not hard-linked: the hooks' work-tree watcher names
		// every file with other links in each answer (a write through the
		// other name makes no event in the work tree), which would make
		// each hook's status judge the whole package.
		if err := treecopy.Tree(filepath.Join(src, f), to, treecopy.Copy); err != nil {
			_ = os.RemoveAll(to)
			return false, fmt.Errorf("seed %s with %s: %w", configDir, f, err)
		}
		log.AddCreated(configDir + "/" + f)
	}
	return true, nil
}

// removeSeeded removes from <repoRoot>/.opencode what enable created
// there (log) and, when enable created .opencode itself, what OpenCode
// then generated in it; a nil log removes nothing.
func removeSeeded(repoRoot string, log *agent.InstallLog) error {
	if log == nil {
		return nil
	}
	dirCreated := log.WasCreated(configDir)
	for _, f := range generatedFiles {
		if dirCreated || log.WasCreated(configDir+"/"+f) {
			if err := os.RemoveAll(filepath.Join(repoRoot, configDir, f)); err != nil {
				return fmt.Errorf("remove %s/%s: %w", configDir, f, err)
			}
		}
	}
	return nil
}
