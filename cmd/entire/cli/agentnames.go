package cli

import (
	"strings"

	"github.com/entirecli/entire/agent"
)

// registeredAgents returns the registered agents, in name order. Help
// texts name them through it, so that a new agent needs no edit here.
func registeredAgents() []agent.Agent {
	var out []agent.Agent
	for _, n := range agent.List() {
		if a, err := agent.Get(n); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// agentNameList returns the registry names of the registered agents
// joined as words ("claude-code or gemini" with conj "or").
func agentNameList(conj string) string {
	var names []string
	for _, a := range registeredAgents() {
		names = append(names, string(a.Name()))
	}
	return joinWords(names, conj)
}

// agentTypeList returns the type labels of the registered agents joined
// as words ("Claude Code and Gemini CLI" with conj "and"; ", " for conj
// "").
func agentTypeList(conj string) string {
	var types []string
	for _, a := range registeredAgents() {
		types = append(types, string(a.Type()))
	}
	return joinWords(types, conj)
}

// joinWords joins items as a list in a sentence: "a", "a <conj> b",
// "a, b <conj> c"; with an empty conj, every item is separated by ", ".
func joinWords(items []string, conj string) string {
	if conj == "" || len(items) < 2 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
