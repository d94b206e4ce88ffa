package explain

import (
	"fmt"
	"io"

	"github.com/entirecli/entire/checkpoint"
)

// CheckpointAttribution is the line attribution the checkpoint view shows
// for a committed checkpoint: that of its latest session (nil when none
// was computed).
func CheckpointAttribution(cp *checkpoint.Checkpoint) *checkpoint.Attribution {
	if cp == nil || len(cp.Sessions) == 0 {
		return nil
	}
	return cp.Sessions[len(cp.Sessions)-1].Metadata.InitialAttribution
}

// CombineAttributions adds up the line attributions of several checkpoints,
// weighted by their lines: the agent's lines over all committed lines, not
// the mean of the percentages. The caller passes each checkpoint once, so
// each of its lines counts once; nil entries are skipped. It returns nil
// when all are nil. CalculatedAt is the latest of theirs.
func CombineAttributions(atts []*checkpoint.Attribution) *checkpoint.Attribution {
	var out *checkpoint.Attribution
	for _, a := range atts {
		if a == nil {
			continue
		}
		if out == nil {
			out = &checkpoint.Attribution{}
		}
		if a.CalculatedAt.After(out.CalculatedAt) {
			out.CalculatedAt = a.CalculatedAt
		}
		out.AgentLines += a.AgentLines
		out.HumanAdded += a.HumanAdded
		out.HumanModified += a.HumanModified
		out.HumanRemoved += a.HumanRemoved
		out.TotalCommitted += a.TotalCommitted
	}
	if out != nil && out.TotalCommitted > 0 {
		out.AgentPercentage = float64(out.AgentLines) / float64(out.TotalCommitted) * 100
	}
	return out
}

// CommitAttribution combines the attributions of the distinct checkpoints
// a commit carries (ids, as checkpoint.CheckpointsOf returns them): a
// checkpoint missing from the metadata branch or without attribution adds
// nothing. It returns the combination (nil when none has one) and how many
// checkpoints contributed.
func (l *Loader) CommitAttribution(ids []checkpoint.ID) (*checkpoint.Attribution, int, error) {
	var atts []*checkpoint.Attribution
	seen := map[checkpoint.ID]bool{}
	for _, id := range ids {
		if seen[id] || !l.Store.Exists(id) {
			continue
		}
		seen[id] = true
		cp, err := l.Store.Read(id)
		if err != nil {
			return nil, 0, fmt.Errorf("read checkpoint %s: %w", id, err)
		}
		if a := CheckpointAttribution(cp); a != nil {
			atts = append(atts, a)
		}
	}
	return CombineAttributions(atts), len(atts), nil
}

// RenderCombinedAttribution writes the combined attribution of a commit
// that carries n checkpoints, in the checkpoint view's words:
//
//	Attribution (2 checkpoints combined): 50.0% agent (4 of 8 committed lines; human +4 ~0 -0)
func RenderCombinedAttribution(w io.Writer, n int, a *checkpoint.Attribution) error {
	_, err := fmt.Fprintf(w, "Attribution (%d checkpoints combined): %.1f%% agent (%d of %d committed lines; human +%d ~%d -%d)\n",
		n, a.AgentPercentage, a.AgentLines, a.TotalCommitted, a.HumanAdded, a.HumanModified, a.HumanRemoved)
	return err
}
