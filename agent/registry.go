package agent

import (
	"fmt"
	"slices"
	"sort"
	"sync"
)

// The registry is the only package-level mutable state: agents add themselves
// from init, everything else reads.
var (
	registryMu sync.RWMutex
	registry   = map[AgentName]Factory{}
	// protected holds the ProtectedDirs of every registered agent, taken
	// when it registers, so that IsProtectedDir costs a map lookup.
	protected = map[AgentName][]string{}
)

// Register adds an agent factory to the registry. Called from init() in each
// agent implementation. Registering the same name again replaces the factory.
// Register calls the factory once, for the agent's protected directories
// (see DirProtector). Safe for concurrent use.
func Register(name AgentName, factory Factory) {
	var dirs []string
	if p, ok := factory().(DirProtector); ok {
		dirs = slices.Clone(p.ProtectedDirs())
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = factory
	protected[name] = dirs
}

// IsProtectedDir reports whether name, a directory at the root of a
// repository, is a protected directory of a registered agent (see
// DirProtector). Safe for concurrent use; it allocates nothing.
func IsProtectedDir(name string) bool {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, dirs := range protected {
		if slices.Contains(dirs, name) {
			return true
		}
	}
	return false
}

// ProtectedDirs returns the protected directories of every registered
// agent (see DirProtector), sorted, each once.
func ProtectedDirs() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var out []string
	for _, dirs := range protected {
		out = append(out, dirs...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Get returns a new instance of the agent registered under name, or an error
// wrapping ErrUnknownAgent.
func Get(name AgentName) (Agent, error) {
	registryMu.RLock()
	f, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("get agent %q: %w", name, ErrUnknownAgent)
	}
	return f(), nil
}

// List returns the registered agent names, sorted.
func List() []AgentName {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]AgentName, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// Default returns the default agent. Returns nil if the default agent is not
// registered.
func Default() Agent {
	a, err := Get(DefaultAgentName)
	if err != nil {
		return nil
	}
	return a
}

// GetByAgentType retrieves an agent by its type identifier (e.g. "Claude
// Code"). It instantiates registered agents in name order until one matches;
// that is cheap (a handful of empty structs) and not on a hot path. Unknown
// types give an error wrapping ErrUnknownAgent.
func GetByAgentType(agentType AgentType) (Agent, error) {
	for _, n := range List() {
		a, err := Get(n)
		if err != nil {
			continue
		}
		if a.Type() == agentType {
			return a, nil
		}
	}
	return nil, fmt.Errorf("get agent of type %q: %w", agentType, ErrUnknownAgent)
}
