package agent

import "strconv"

// HookSpec is one row of an agent's hook table: which of the agent's events
// (and matcher) runs which `entire hooks <agent> <verb>` verb, parsed as
// which HookType.
type HookSpec struct {
	// Event is the agent's event name ("PreToolUse", "BeforeTool").
	Event string
	// Matcher is the group matcher; "" matches every call.
	Matcher string
	// Name is the handler's `name`, for agents whose handlers carry one;
	// "" leaves it out.
	Name string
	// Verb is the `entire hooks <agent>` subcommand the handler runs.
	Verb string
	// Type is the normalized hook type the verb's payload is parsed as.
	Type HookType
	// TimeoutMS is the handler timeout in milliseconds; 0 leaves it out
	// (the agent's default).
	TimeoutMS int
	// NoOp marks a verb that is no longer installed. Installs written
	// before still call it, so it stays accepted and does nothing (see
	// NoOpHookVerbs); install removes its handler.
	NoOp bool
}

// HookedSpec describes an agent with lifecycle hooks to HookBase: its
// identity, its hook table and the installer that writes the table into
// the agent's settings file of a repository.
type HookedSpec interface {
	Spec
	HookInstaller
	// HookTable returns the hook table in installation order, a fresh copy
	// on every call.
	HookTable() []HookSpec
}

// HookEntries returns the handlers of table's installed rows (NoOp rows
// left out) as HookEditor installs them: a handler object {"name" (when
// the row has one), "type": "command", "command": command(verb),
// "timeout" (when the row has one)}, in table order.
func HookEntries(table []HookSpec, command func(verb string) string) []HookEntry {
	var out []HookEntry
	for _, s := range table {
		if s.NoOp {
			continue
		}
		cmd := command(s.Verb)
		h := &Object{}
		if s.Name != "" {
			h.Set("name", MustString(s.Name))
		}
		h.Set("type", MustString("command"))
		h.Set("command", MustString(cmd))
		if s.TimeoutMS > 0 {
			h.Set("timeout", []byte(strconv.Itoa(s.TimeoutMS)))
		}
		out = append(out, HookEntry{Event: s.Event, Matcher: s.Matcher, Command: cmd, Handler: h.Compact()})
	}
	return out
}

// HookBase is Base for an agent with lifecycle hooks: it adds the
// table-driven hook methods (HookHandler, HookVerbResolver, NoOpHookVerbs,
// HookSupport) and the HookInstaller methods, which call the Spec's
// installer. Agents embed it; the zero value is ready to use.
type HookBase[S HookedSpec] struct {
	Base[S]
}

func (b *HookBase[S]) spec() S {
	var s S
	return s
}

// SupportsHooks returns true.
func (b *HookBase[S]) SupportsHooks() bool { return true }

// GetHookNames returns the installed verbs (rows not NoOp), each once, in
// table order.
func (b *HookBase[S]) GetHookNames() []string {
	var names []string
	for _, s := range b.spec().HookTable() {
		if !s.NoOp {
			names = AppendUnique(names, s.Verb)
		}
	}
	return names
}

// NoOpHookVerbs returns the verbs that are no longer installed but still
// accepted from older installs (NoOp rows), each once; none for most
// agents.
func (b *HookBase[S]) NoOpHookVerbs() []string {
	var names []string
	for _, s := range b.spec().HookTable() {
		if s.NoOp {
			names = AppendUnique(names, s.Verb)
		}
	}
	return names
}

// HookTypeForVerb maps a verb of the table (installed or no-op) to its
// hook type.
func (b *HookBase[S]) HookTypeForVerb(verb string) (HookType, bool) {
	for _, s := range b.spec().HookTable() {
		if s.Verb == verb {
			return s.Type, true
		}
	}
	return "", false
}

// GetSupportedHooks returns the hook types of the installed verbs, each
// once, in table order.
func (b *HookBase[S]) GetSupportedHooks() []HookType {
	var out []HookType
	seen := map[HookType]bool{}
	for _, s := range b.spec().HookTable() {
		if !s.NoOp && !seen[s.Type] {
			seen[s.Type] = true
			out = append(out, s.Type)
		}
	}
	return out
}

// InstallHooksIn implements HookInstaller with the Spec's installer.
func (b *HookBase[S]) InstallHooksIn(repoRoot string, opts HookInstallOptions) (int, error) {
	return b.spec().InstallHooksIn(repoRoot, opts)
}

// UninstallHooksIn implements HookInstaller with the Spec's installer.
func (b *HookBase[S]) UninstallHooksIn(repoRoot string, log *InstallLog) error {
	return b.spec().UninstallHooksIn(repoRoot, log)
}

// HooksInstalledIn implements HookInstaller with the Spec's installer.
func (b *HookBase[S]) HooksInstalledIn(repoRoot string) (bool, error) {
	return b.spec().HooksInstalledIn(repoRoot)
}

// InstallHooks installs the hooks in the repository containing the working
// directory (see InstallHooksIn).
func (b *HookBase[S]) InstallHooks(localDev bool, force bool) (int, error) {
	root, err := RepoRoot()
	if err != nil {
		return 0, err
	}
	return b.spec().InstallHooksIn(root, HookInstallOptions{LocalDev: localDev, Force: force})
}

// UninstallHooks removes the hooks from the repository containing the
// working directory (see UninstallHooksIn; no install log).
func (b *HookBase[S]) UninstallHooks() error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	return b.spec().UninstallHooksIn(root, nil)
}

// AreHooksInstalled reports whether the hooks are installed in the
// repository containing the working directory; errors count as not
// installed.
func (b *HookBase[S]) AreHooksInstalled() bool {
	root, err := RepoRoot()
	if err != nil {
		return false
	}
	ok, _ := b.spec().HooksInstalledIn(root)
	return ok
}
