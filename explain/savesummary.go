package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/entirecli/entire/checkpoint"
)

// SaveSummary stores sum, which the caller redacted (Summary.Redacted), as
// the summary of session slot `slot` of checkpoint id: it rewrites only
// that slot's metadata.json in a new commit, "Update summary for
// checkpoint <id> (session: <sid>)", where the checkpoint lives (its ref,
// or the metadata branch, created from the destination's copy when only
// that exists; see checkpoint.Store.UpdateFile).
func SaveSummary(ctx context.Context, store *checkpoint.Store, id checkpoint.ID, slot int, sum *checkpoint.Summary) error {
	rel := strconv.Itoa(slot) + "/" + checkpoint.MetadataFile
	var sessionID string
	edit := func(data []byte) ([]byte, error) {
		// Keep every key the file has, ours or not: only "summary" changes.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("corrupt %s of %s: %w", rel, id, err)
		}
		var meta checkpoint.SessionMetadata
		_ = json.Unmarshal(data, &meta)
		meta.Summary = sum
		out, err := json.MarshalIndent(meta, "", "  ")
		if err != nil {
			return nil, err
		}
		var merged map[string]json.RawMessage
		_ = json.Unmarshal(out, &merged)
		for k := range m {
			if _, ok := merged[k]; !ok {
				out = nil // an unknown key: keep the original's keys
				break
			}
		}
		if out == nil {
			raw, err := json.Marshal(sum)
			if err != nil {
				return nil, err
			}
			m["summary"] = raw
			if out, err = json.MarshalIndent(m, "", "  "); err != nil {
				return nil, err
			}
		}
		return append(out, '\n'), nil
	}
	// The message names the session, known once the file is read: read
	// it first (the edit reads it again under the compare-and-swap).
	if cp, err := store.Read(id); err == nil {
		for _, s := range cp.Sessions {
			if s.Index == slot {
				sessionID = s.Metadata.SessionID
			}
		}
	}
	msg := fmt.Sprintf("Update summary for checkpoint %s (session: %s)\n", id, sessionID)
	if err := store.UpdateFile(ctx, id, rel, edit, msg); err != nil {
		return fmt.Errorf("save summary of %s: %w", id, err)
	}
	return nil
}
