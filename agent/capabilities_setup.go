package agent

// SetupFile is one file of an agent's setup that `entire enable` writes or
// keeps, as enable lists it.
type SetupFile struct {
	// Path is the file's path relative to the repository root, with
	// forward slashes.
	Path string
	// What says what the file holds and whether to commit it.
	What string
	// Personal marks a per-user file that must stay out of git: enable
	// adds it to the repository's info/exclude unless something already
	// ignores it, says how it is ignored after What, and `disable
	// --uninstall` takes that exclude out again.
	Personal bool
}

// EnableSpec is what `entire enable` does and says specially for an agent,
// beyond installing its hooks.
type EnableSpec struct {
	// Preview marks the agent's support as a preview: enable says
	// "(Preview)" after the agent's description.
	Preview bool
	// Files are the files of the agent's setup, in the order enable lists
	// them, the hook settings file first.
	Files []SetupFile
	// Trust, when not empty, says what the user must do before the agent
	// runs the installed hooks (an agent that skips untrusted project
	// hooks silently): enable prints it, and status and doctor report an
	// install whose hooks have not run since (see HooksSeen).
	Trust string
	// Note, when not empty, is what else the user should know about the
	// agent's setup; enable prints it.
	Note string
	// NotRunYet, when not empty, is what status and doctor say of an
	// install none of whose hooks has run since enable wrote it, for an
	// agent without a trust gate that would not say so either (a plugin
	// the agent fails to load is skipped without a word).
	NotRunYet string
}

// Enabler is implemented by agents that `entire enable` can set up.
type Enabler interface {
	// EnableSpec returns what enable does and says for the agent.
	EnableSpec() EnableSpec
}
