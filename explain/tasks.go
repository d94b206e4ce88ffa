package explain

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/strategy/subagent"
)

// TaskOptions tune WriteTasks. The zero value marks artifacts against repo's work
// tree and hydrates cards from repo.
type TaskOptions struct {
	// WorkTree is the directory artifacts are looked up in; "" means the
	// repository root. Use "-" to show artifacts unmarked.
	WorkTree string
	// Lookup hydrates reference cards; nil means NewLookup(repo).
	Lookup Lookup
}

// WriteTasks writes the slot's subagent tasks and references to w:
//
//	Subagent tasks:
//	  Task toolu_01 (claude-code, completed): success, confidence 0.90
//	    summary: ...
//	    artifacts: docs/layout.md (present), docs/gone.md (missing)
//
//	References:
//	  [note proj-layout] Layout: cmd/ and pkg/
//	  [checkpoint a3b2c4d5e6f7] (gone: the checkpoint no longer exists)
//
// Each section (and the blank line between them) appears only when the slot
// has something for it; a slot with neither writes nothing. Memory refs
// that are keys of live notes of the session's agent show the note's
// preview; other refs are shown as written.
// Errors come from reading the slot (a corrupt record) or from w.
func WriteTasks(ctx context.Context, w io.Writer, repo *gitrepo.Repo, sess *checkpoint.Session, opts TaskOptions) error {
	tasks, err := subagent.ReadSlot(repo, sess)
	if err != nil {
		return err
	}
	lookup := opts.Lookup
	if lookup == nil {
		lookup = NewLookup(ctx, repo)
	}
	cards, err := SessionCards(ctx, repo, sess, lookup)
	if err != nil {
		return err
	}
	var b strings.Builder
	if len(tasks) > 0 {
		base := opts.WorkTree
		switch base {
		case "":
			base = repo.Root
		case "-":
			base = ""
		}
		artifacts := subagent.NewPresenceResolver(base)
		memory := noteResolver(ctx, repo, string(sess.Metadata.Agent))
		b.WriteString("Subagent tasks:\n")
		for _, t := range tasks {
			b.WriteString(indent(subagent.Format(t, artifacts, memory)) + "\n")
		}
	}
	if len(cards) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("References:\n")
		for _, c := range cards {
			b.WriteString("  " + c.String() + "\n")
		}
	}
	if b.Len() == 0 {
		return nil
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write tasks and references: %w", err)
	}
	return nil
}

// indent prefixes every line of s with two spaces.
func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// noteResolver shows a memory ref that is a note key of agentType's
// namespace (the registry name of the agent of that type, else
// notes.DefaultAgent) with the note's preview; nil when notes cannot be
// read.
func noteResolver(ctx context.Context, repo *gitrepo.Repo, agentType string) func(string) string {
	ns := notes.DefaultAgent
	if a, err := agent.GetByAgentType(agent.AgentType(agentType)); err == nil {
		ns = string(a.Name())
	}
	store, err := notes.NewStore(ctx, repo, notes.WithAgent(ns))
	if err != nil {
		return nil
	}
	return func(ref string) string {
		if notes.ValidateKey(ref) != nil {
			return ref
		}
		n, err := store.Get(ctx, ref)
		if err != nil {
			return ref // not a note (or gone): other memory ids look alike
		}
		return ref + " (note: " + n.Preview + ")"
	}
}
