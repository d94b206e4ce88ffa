package agent

// DirProtector is implemented by agents that keep configuration in
// directories at the root of the repository (.claude). Those directories
// are never snapshotted, rewound or restored (SPEC 2.3); see
// IsProtectedDir. Base implements it with Identity.ConfigDir.
type DirProtector interface {
	// ProtectedDirs returns the directory names, relative to the
	// repository root, without slashes. The result is taken once, when
	// the agent registers.
	ProtectedDirs() []string
}

// SessionStore is implemented by agents whose sessions Entire writes back
// where the agent resumes them (`entire resume`, a rewind of a committed
// checkpoint): it says where a session's transcript goes and what must
// exist on this machine for the agent to find it there.
type SessionStore interface {
	// SessionFilePath returns where WriteSession writes session: its
	// SessionRef when set, else a file in the agent's session directory
	// for session.RepoPath (GetSessionDir), named as the agent names it
	// (the name may depend on session.NativeData). An ID that cannot name
	// a file gives an error.
	SessionFilePath(session *AgentSession) (string, error)
	// StorageDir returns the directory that must exist before a session
	// is written into sessionDir (a directory of SessionFilePath's): the
	// agent's own data directory on this machine (~/.claude), whose
	// absence means the agent was never run here, or sessionDir itself
	// when the test override (TestSessionDirEnv) sets the session
	// directory. The directories between the two are created on write.
	// "" when the agent makes its own storage on write (an external
	// agent's program).
	StorageDir(sessionDir string) string
	// TestSessionDirEnv returns the environment variable that replaces
	// the session directory in tests (SPEC 4.6), "" when none does.
	TestSessionDirEnv() string
}

// SessionIDEnver is implemented by agents that tell the processes they
// start (an MCP server, a shell command) the ID of the current session in
// an environment variable.
type SessionIDEnver interface {
	// SessionIDEnv returns the variable's name.
	SessionIDEnv() string
}

// SessionIDFromEnv returns the session ID that a registered agent's
// SessionIDEnv variable holds in the environment getenv reads, trying
// agents in name order; "" when none is set.
func SessionIDFromEnv(getenv func(string) string) string {
	for _, n := range List() {
		a, err := Get(n)
		if err != nil {
			continue
		}
		if e, ok := a.(SessionIDEnver); ok {
			if id := getenv(e.SessionIDEnv()); id != "" {
				return id
			}
		}
	}
	return ""
}

// PromptlessTurns is implemented by agents whose client may run a turn
// without a prompt event (Factory droid's `droid exec` sends no
// UserPromptSubmit): the turn starts at its first tool event, or at the
// turn end when it calls no tool.
type PromptlessTurns interface {
	// TurnsStartWithoutPrompt reports whether a tool event of a session
	// with no turn in progress starts one.
	TurnsStartWithoutPrompt() bool
}

// StartsPromptlessTurns reports whether a tool event of ag starts a turn
// when none is in progress (PromptlessTurns).
func StartsPromptlessTurns(ag Agent) bool {
	p, ok := ag.(PromptlessTurns)
	return ok && p.TurnsStartWithoutPrompt()
}
