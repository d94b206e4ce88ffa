package checkpoint

import (
	"sort"
	"strconv"

	"github.com/entirecli/entire/agent"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// SlotPaths returns the tree-absolute paths (SPEC 3.7 "sessions" entries)
// of the files of session slot idx of checkpoint id whose slot tree is t:
// "" for a file that is absent; the legacy full.log stands for the
// transcript when there is no full.jsonl.
func SlotPaths(id ID, idx int, t *object.Tree) SessionPaths {
	return SlotPathsIn(id.Shard()+"/", idx, t)
}

// SlotPathsIn is SlotPaths of a checkpoint at dir, "" for a checkpoint
// ref's tree (paths "/0/full.jsonl", SPEC 10.3) or "<shard>/" on the
// metadata branch.
func SlotPathsIn(dir string, idx int, t *object.Tree) SessionPaths {
	prefix := "/" + dir + strconv.Itoa(idx) + "/"
	has := func(name string) string {
		if _, err := t.FindEntry(name); err == nil {
			return prefix + name
		}
		return ""
	}
	p := SessionPaths{Metadata: prefix + MetadataFile, Transcript: has(TranscriptFile),
		Context: has(ContextFile), ContentHash: has(ContentHashFile), Prompt: has(PromptFile)}
	if p.Transcript == "" {
		p.Transcript = has(LegacyLogFile)
	}
	return p
}

// Summarize computes the root metadata.json of checkpoint id from its
// session slots (paths[i] and metas[i] describe slot i; a nil meta is a
// slot whose metadata is unknown): checkpoint counts and top-level token
// usage summed, files touched united and sorted. Version, strategy and
// branch come from latest, the session written last.
func Summarize(id ID, latest SessionMetadata, paths []SessionPaths, metas []*SessionMetadata) RootMetadata {
	root := RootMetadata{
		CLIVersion:   latest.CLIVersion,
		CheckpointID: id,
		Strategy:     latest.Strategy,
		Branch:       latest.Branch,
		FilesTouched: []string{},
		Sessions:     append([]SessionPaths(nil), paths...),
	}
	files := map[string]bool{}
	var usage agent.TokenUsage
	hasUsage := false
	for _, m := range metas {
		if m == nil {
			continue
		}
		root.CheckpointsCount += m.CheckpointsCount
		for _, f := range m.FilesTouched {
			files[f] = true
		}
		if u := m.TokenUsage; u != nil {
			hasUsage = true
			usage.InputTokens += u.InputTokens
			usage.CacheCreationTokens += u.CacheCreationTokens
			usage.CacheReadTokens += u.CacheReadTokens
			usage.OutputTokens += u.OutputTokens
			usage.APICallCount += u.APICallCount
		}
	}
	for f := range files {
		root.FilesTouched = append(root.FilesTouched, f)
	}
	sort.Strings(root.FilesTouched)
	if hasUsage {
		root.TokenUsage = &usage
	}
	return root
}
