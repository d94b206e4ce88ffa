// Package agent defines how entire talks to coding agents (Claude Code, Gemini
// CLI): the Agent interface and its optional capabilities (hooks, transcript
// analysis, chunking), the agent registry, transcript chunking for storage, and
// the normalized types (hook input, token usage, transcript analysis) that the
// strategies consume. Concrete agents live in sub-packages and register
// themselves with Register from init; the binary imports them once.
//
// # Capabilities
//
// Besides the seed interfaces (Agent, HookSupport, HookHandler,
// TranscriptAnalyzer, TranscriptChunker, FileWatcher), agents may implement:
//
//   - HookInstaller: install/uninstall hooks in a given repository root.
//   - HookVerbResolver: map an `entire hooks <agent> <verb>` verb to a HookType.
//   - NoOpHookVerbs: verbs older installs still call that do nothing now.
//   - HookToolNamer: the tool a payload without tool_name was called with.
//   - TranscriptScanner: incremental transcript analysis (the hook path).
//   - SubagentTokenReader: usage of subagents stored in their own files.
//   - HookAnswerer: what a hook prints when it has nothing to say, and how
//     it reports a failure (answer or stderr, exit status).
//   - PostToolRouter: what each post-tool verb handles (a subagent's end,
//     the todo tools, the hiding of large results).
//   - TaskResultReader: the subagent run a subagent tool's result names.
//   - ToolOutputHider: how a large tool result is hidden and replaced.
//   - MCPHost: where Entire's MCP server is registered (RegisterMCP,
//     UnregisterMCP) and how the agent names its tools.
//   - PromptCLI: the program that answers a summary prompt.
//   - TranscriptRoles: the entry types of the user and the assistant.
//   - TranscriptFormatter: JSONL or a JSON document, told from content
//     (FormatOf, FileFormat): how a transcript is stored and read back.
//   - TranscriptRecognizer: transcripts no other agent writes (Recognize,
//     ForTranscript).
//   - TranscriptTimer: the time of a transcript's newest entry
//     (LastEntryTime).
//   - DirProtector: directories of the repository that are never
//     snapshotted or rewound (IsProtectedDir).
//   - SessionStore: where a session is written back for resumption, the
//     directory that must exist for it, the test override variable.
//   - SessionIDEnver: the variable that gives started processes the
//     session ID (SessionIDFromEnv).
//   - Enabler: what `entire enable` writes and says for the agent.
//
// Detect them with a type assertion; code outside this package and the
// agents' own asks them instead of naming an agent.
//
// # Adding an agent
//
// An agent is one package: a stateless Spec type that returns its Identity
// (and, for an agent with hooks, its hook table and settings-file
// installer), an Agent struct that embeds Base[Spec] or HookBase[Spec] for
// everything that follows from those, the methods that are its own
// (session directory, transcript analysis, the capabilities above), an
// init that calls Register, and a run of the agenttest conformance suite.
// The binary imports it once, in cmd/entire/factory.go.
//
// # Analysing transcripts on the hook path
//
// A scan returns an Analysis whose To position is saved (e.g. in session
// state) and passed as `from` to the next scan, which then reads only what
// was appended:
//
//	sc := a.(agent.TranscriptScanner)
//	an, err := sc.ScanTranscript(transcriptPath, state.Position)
//	// an.Prompts, an.ModifiedFiles, an.Tokens ... cover (from, an.To]
//	files := agent.RepoRelative(repoRoot, hookInput.Cwd, an.ModifiedFiles)
//	if r, ok := a.(agent.SubagentTokenReader); ok {
//		sub, _ := r.SubagentTokenUsage(transcriptPath, an.SubagentIDs)
//		an.Tokens.AddSubagentUsage(sub)
//	}
//	state.Position = an.To
//
// For Claude Code JSONL the cost is that of the appended bytes (the file is
// read from Position.Offset); a trailing line without a newline is left for the
// next scan. Gemini's single-JSON transcripts are rewritten whole by Gemini CLI
// and are therefore re-read whole.
//
// # Storing transcripts
//
// ChunkTranscriptSize(content, agentType, StoreChunkSize) splits a transcript
// into chunks named ChunkFileName("full.jsonl", i); ReassembleTranscript
// reverses it. JSONL chunking is greedy from the start and thus
// prefix-stable: as a transcript grows, all chunks but the last stay
// byte-identical. The JSONL store packs with PackJSONL(content,
// StoreChunkSize, MaxChunkSize): a line over the 4 MiB target, up to
// SPEC 4.5's 50 MiB limit, is a chunk of its own.
package agent
