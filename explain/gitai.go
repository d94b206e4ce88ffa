package explain

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// GitAINotesRef is where git-ai keeps its authorship logs.
const GitAINotesRef = "refs/notes/ai"

// gitAISchema is the authorship log version written.
const gitAISchema = "authorship/3.0.0"

// gitAIMarker is the custom attribute that marks a prompt record this
// exporter wrote: a note holding none of them is git-ai's own and is kept.
const gitAIMarker = "entire_checkpoint"

// GitAIExport is what an export did.
type GitAIExport struct {
	// Written are the commits that got a note; Kept those whose note
	// git-ai wrote (left alone); Skipped those with no agent line.
	Written, Kept, Skipped int
}

// gitAIPrompt is a prompt record of an authorship log.
type gitAIPrompt struct {
	AgentID struct {
		Tool  string `json:"tool"`
		ID    string `json:"id"`
		Model string `json:"model"`
	} `json:"agent_id"`
	HumanAuthor      *string           `json:"human_author"`
	TotalAdditions   int               `json:"total_additions"`
	TotalDeletions   int               `json:"total_deletions"`
	AcceptedLines    int               `json:"accepted_lines"`
	OverridenLines   int               `json:"overriden_lines"`
	CustomAttributes map[string]string `json:"custom_attributes,omitempty"`
}

// gitAIMetadata is the JSON section of an authorship log.
type gitAIMetadata struct {
	SchemaVersion string                 `json:"schema_version"`
	GitAIVersion  *string                `json:"git_ai_version"`
	BaseCommitSHA string                 `json:"base_commit_sha"`
	Prompts       map[string]gitAIPrompt `json:"prompts"`
}

// ExportGitAI writes, for every commit of commits that carries
// checkpoints, git-ai's authorship log (Git AI Standard 3.0.0) as a note
// in refs/notes/ai: for each file the commit changed, the lines the
// agents' turns wrote in it (the person's, mixed ones included, are left
// out: git-ai reads an unlisted line as not the AI's), keyed by session.
// A note git-ai wrote itself is kept.
func (b *Blamer) ExportGitAI(ctx context.Context, commits []plumbing.Hash) (GitAIExport, error) {
	var res GitAIExport
	if b.commits == nil {
		b.commits = map[plumbing.Hash]*blameCommit{}
		b.records = map[checkpoint.ID][]slotRecord{}
	}
	var absent []checkpoint.ID
	for _, h := range commits {
		for _, id := range b.commit(h).ids {
			if b.slots(id) == nil {
				absent = append(absent, id)
			}
		}
	}
	if len(absent) > 0 && b.Fetch != nil {
		b.Fetch(absent)
		for _, id := range absent {
			delete(b.records, id)
		}
	}
	for _, h := range commits {
		note, err := b.gitAINote(h)
		if err != nil {
			return res, err
		}
		if note == nil {
			res.Skipped++
			continue
		}
		if old, err := b.Repo.RunGit(ctx, "notes", "--ref="+GitAINotesRef, "show", h.String()); err == nil && !bytes.Contains(old, []byte(`"`+gitAIMarker+`"`)) {
			res.Kept++
			continue
		}
		if _, err := b.Repo.RunGitInput(ctx, note, "notes", "--ref="+GitAINotesRef, "add", "-f", "-F", "-", h.String()); err != nil {
			return res, fmt.Errorf("write the note of %s: %w", h, err)
		}
		res.Written++
	}
	return res, nil
}

// gitAINote returns the authorship log of commit h, nil when no agent
// wrote a line of it.
func (b *Blamer) gitAINote(h plumbing.Hash) ([]byte, error) {
	c := b.commit(h)
	if len(c.ids) == 0 {
		return nil, nil
	}
	co, err := b.Repo.Git.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	paths, err := b.changedPaths(co)
	if err != nil {
		return nil, err
	}
	author := co.Author.Name + " <" + co.Author.Email + ">"
	prompts := map[string]gitAIPrompt{}
	var body strings.Builder
	for _, p := range paths {
		b.blobAt(c, h.String(), p)
		text := b.textAt(c, p)
		n := strings.Count(text, "\n")
		if text != "" && !strings.HasSuffix(text, "\n") {
			n++
		}
		byKey := map[string][]int{}
		for i := 1; i <= n; i++ {
			cl, _ := b.claim(c, h.String(), p, i)
			if cl == nil || cl.Turn == 0 {
				continue
			}
			key, tool := gitAIKey(cl.Agent, cl.SessionID)
			pr, ok := prompts[key]
			if !ok {
				pr.AgentID.Tool, pr.AgentID.ID, pr.AgentID.Model = tool, cl.SessionID, cl.Model
				if pr.AgentID.Model == "" {
					pr.AgentID.Model = "unknown"
				}
				a := author
				pr.HumanAuthor = &a
				pr.CustomAttributes = map[string]string{gitAIMarker: cl.CheckpointID}
			}
			if cl.Mixed {
				pr.OverridenLines++
			} else {
				pr.TotalAdditions++
				pr.AcceptedLines++
				byKey[key] = append(byKey[key], i)
			}
			prompts[key] = pr
		}
		if len(byKey) == 0 {
			continue
		}
		body.WriteString(gitAIPath(p) + "\n")
		keys := make([]string, 0, len(byKey))
		for k := range byKey {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return byKey[keys[i]][0] < byKey[keys[j]][0] })
		for _, k := range keys {
			body.WriteString("  " + k + " " + gitAIRanges(byKey[k]) + "\n")
		}
	}
	if body.Len() == 0 {
		return nil, nil
	}
	meta := gitAIMetadata{SchemaVersion: gitAISchema, BaseCommitSHA: h.String(), Prompts: prompts}
	js, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return nil, err
	}
	return []byte(body.String() + "---\n" + string(js)), nil
}

// changedPaths returns the files commit co changed against its first
// parent (every file of a root commit), sorted.
func (b *Blamer) changedPaths(co *object.Commit) ([]string, error) {
	var parent plumbing.Hash
	if co.NumParents() > 0 {
		pc, err := b.Repo.Git.CommitObject(co.ParentHashes[0])
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", co.ParentHashes[0], err)
		}
		parent = pc.TreeHash
	}
	set := map[string]bool{}
	if err := b.Repo.DiffTreePaths(parent, co.TreeHash, nil, set); err != nil {
		return nil, fmt.Errorf("compare %s with its parent: %w", co.Hash, err)
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// gitAIKey returns the legacy prompt key of a session (the first 16 hex
// digits of SHA-256 of "<tool>:<id>") and the tool's name: the agent's
// registry name.
func gitAIKey(agentType, sessionID string) (string, string) {
	tool := strings.ToLower(strings.ReplaceAll(agentType, " ", "-"))
	if a, err := agent.GetByAgentType(agent.AgentType(agentType)); err == nil {
		tool = string(a.Name())
	}
	if tool == "" {
		tool = "unknown"
	}
	sum := sha256.Sum256([]byte(tool + ":" + sessionID))
	return hex.EncodeToString(sum[:])[:16], tool
}

// gitAIPath writes a path as an authorship log names it: quoted when it
// holds a space, a tab or a newline.
func gitAIPath(p string) string {
	if strings.ContainsAny(p, " \t\n") {
		return `"` + p + `"`
	}
	return p
}

// gitAIRanges writes ascending line numbers as ranges ("1-4,9,12-13").
func gitAIRanges(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(ns[i]))
		} else {
			parts = append(parts, strconv.Itoa(ns[i])+"-"+strconv.Itoa(ns[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
