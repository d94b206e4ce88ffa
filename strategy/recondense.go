package strategy

import (
	"slices"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
)

// mergePreviousSlot folds the slot a session already has in checkpoint id
// into meta and returns the merged prompts. A session is condensed twice
// into one checkpoint when a commit keeps the trailer of the commit it
// replaces, e.g. `git commit --amend` of a linked commit after the agent
// did more work: WriteSession then rewrites the session's slot, and
// without merging the checkpoint would forget the earlier prompts, files,
// steps and tokens although the amended commit still contains that work.
// The transcript needs no merge: the stored one is the whole session
// transcript. Without such a slot (the usual case) meta and prompts are
// returned unchanged.
func (m *ManualCommit) mergePreviousSlot(id checkpoint.ID, meta *checkpoint.SessionMetadata, prompts []string) []string {
	store := m.env.checkpoints()
	if !store.Exists(id) {
		return prompts
	}
	cp, err := store.Read(id)
	if err != nil {
		m.env.Log.Warn("read checkpoint to merge into", "checkpoint_id", id.String(), "error", err)
		return prompts
	}
	for _, sess := range cp.Sessions {
		prev := sess.Metadata
		if prev.SessionID != meta.SessionID {
			continue
		}
		meta.FilesTouched = unionSorted(prev.FilesTouched, meta.FilesTouched)
		meta.CheckpointsCount += prev.CheckpointsCount
		meta.TranscriptIdentifierAtStart = prev.TranscriptIdentifierAtStart
		meta.CheckpointTranscriptStart = prev.CheckpointTranscriptStart
		meta.TranscriptLinesAtStart = prev.TranscriptLinesAtStart
		if prev.TokenUsage != nil {
			usage := &agent.TokenUsage{}
			usage.Add(prev.TokenUsage)
			usage.Add(meta.TokenUsage)
			meta.TokenUsage = usage
		}
		meta.InitialAttribution = mergeAttribution(prev.InitialAttribution, meta.InitialAttribution)
		if prev := sess.Prompts(); !hasPrefix(prompts, prev) {
			// prompts lacks the earlier ones (condense found no
			// previous checkpoint): put them first.
			return append(prev, prompts...)
		}
		return prompts
	}
	return prompts
}

// hasPrefix reports whether list starts with prefix.
func hasPrefix(list, prefix []string) bool {
	return len(prefix) <= len(list) && slices.Equal(list[:len(prefix)], prefix)
}

// mergeAttribution adds up two line attributions of one checkpoint (nil
// when both are nil) and recomputes the agent percentage.
func mergeAttribution(a, b *checkpoint.Attribution) *checkpoint.Attribution {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := *b
	out.AgentLines += a.AgentLines
	out.HumanAdded += a.HumanAdded
	out.HumanModified += a.HumanModified
	out.HumanRemoved += a.HumanRemoved
	out.TotalCommitted += a.TotalCommitted
	out.AgentPercentage = 0
	if out.TotalCommitted > 0 {
		out.AgentPercentage = float64(out.AgentLines) / float64(out.TotalCommitted) * 100
	}
	return &out
}
