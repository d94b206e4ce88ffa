package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/agent/external"
	"github.com/entirecli/entire/internal/settings"
)

// externalAgents finds and registers the external agent programs
// (entire-agent-<name> on PATH) when the repository's untracked local
// settings allow them (external_agents), before the command tree is
// built from the registry. A hook of a built-in agent looks for none; a
// hook of another name looks for that one program only. It returns what
// it found, for status and doctor.
func externalAgents(args []string, f *factory) []external.Found {
	if len(args) > 1 && args[0] == "hooks" && isBuiltinAgent(args[1]) {
		return nil
	}
	repo, err := f.OpenRepo()
	if err != nil {
		return nil
	}
	opts := external.Options{PATH: f.Getenv("PATH"), RepoRoot: repo.Root, StateDir: repo.CommonDir, Builtin: isBuiltinAgent}
	switch named := enableAgentArg(args); {
	case named != "" && !isBuiltinAgent(named):
		// `entire enable --agent <name>` names the program to run: the
		// user's choice, which enable then records in the local file.
		opts.Only = named
	case !settings.ExternalAgentsAllowed(repo.Root):
		return nil
	case len(args) > 1 && args[0] == "hooks" && !slices.Contains(hookInfraWords, args[1]):
		opts.Only = args[1]
	}
	found := external.Discover(context.Background(), opts)
	external.Register(found)
	return found
}

// hookInfraWords are the `entire hooks` subcommands that are no agent.
var hookInfraWords = []string{"git", "fsmonitor", "finish-turn", "compress-objects", "push-after", "condense", "watch"}

// isBuiltinAgent reports whether name is a built-in agent's (registered
// before any external one).
func isBuiltinAgent(name string) bool {
	a, err := agent.Get(agent.AgentName(name))
	if err != nil {
		return false
	}
	_, ext := a.(*external.Agent)
	return !ext
}

// enableAgentArg returns the agent `entire enable --agent <name>` names,
// "" for any other command line.
func enableAgentArg(args []string) string {
	if len(args) == 0 || args[0] != "enable" {
		return ""
	}
	for i, a := range args[1:] {
		if v, ok := strings.CutPrefix(a, "--agent="); ok {
			return v
		}
		if a == "--agent" && i+2 < len(args) {
			return args[i+2]
		}
	}
	return ""
}
