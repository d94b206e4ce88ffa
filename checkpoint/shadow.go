package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MetadataDirPrefix is where a session's metadata lives in a shadow commit's
// tree: ".entire/metadata/<session-id>".
const MetadataDirPrefix = ".entire/metadata/"

// ShadowBranchName returns the shadow branch of a base commit in a worktree:
// "entire/<base[:7]>-<sha256(worktreeID)[:6]>" (the main worktree, ID "",
// hashes to e3b0c4).
func ShadowBranchName(baseCommit, worktreeID string) string {
	sum := sha256.Sum256([]byte(worktreeID))
	base := baseCommit
	if len(base) > 7 {
		base = base[:7]
	}
	return "entire/" + base + "-" + hex.EncodeToString(sum[:])[:6]
}

var shadowPattern = regexp.MustCompile(`^entire/([0-9a-fA-F]{7,})(?:-([0-9a-fA-F]{6}))?$`)

// ParseShadowBranch recognises a shadow branch name (also the legacy
// "entire/<sha7>" form) and returns its base-commit prefix and worktree
// hash ("" for the legacy form). The metadata branch is not a shadow branch.
func ParseShadowBranch(name string) (basePrefix, worktreeHash string, ok bool) {
	name = strings.TrimPrefix(name, "refs/heads/")
	m := shadowPattern.FindStringSubmatch(name)
	if m == nil || name == MetadataBranch {
		return "", "", false
	}
	return m[1], m[2], true
}

// ShadowRef is the ref of a shadow branch.
func ShadowRef(branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/heads/" + branch)
}

// Step is one temporary checkpoint to write on a shadow branch.
type Step struct {
	// Branch is the shadow branch name.
	Branch string
	// BaseTree is the tree the branch starts from when it does not exist
	// yet (HEAD's tree); the first commit has no parent.
	BaseTree plumbing.Hash
	// Changes are the work-tree paths to record (blobs already stored).
	Changes []gitrepo.Change
	// MetadataDir, when not empty, is replaced by MetadataFiles,
	// MetadataTrees and Transcript (".entire/metadata/<session>" or a task
	// directory below it).
	MetadataDir   string
	MetadataFiles map[string][]byte
	MetadataTrees map[string]plumbing.Hash
	Transcript    *TranscriptState
	// Message is the whole commit message, trailers included.
	Message string
	// Snapshot makes the step a full snapshot of the work tree: its tree is
	// BaseTree plus Changes (Changes then list every path that differs from
	// BaseTree), keeping only the tip's .entire/metadata (the other sessions'
	// metadata) from the branch. Without it the tree is the tip's tree plus
	// Changes.
	Snapshot bool
}

// ErrStepUnchanged is returned by WriteStep when the step's tree equals the
// branch tip's tree: nothing changed since the last checkpoint.
var ErrStepUnchanged = errors.New("checkpoint: no changes since last checkpoint")

// WriteStep commits a step on its shadow branch (creating the branch at the
// first step) and returns the commit. Concurrent writers (several sessions
// on one base commit) are serialised by compare-and-swap: a writer that
// lost the race rebuilds its tree on the new tip. It returns
// ErrStepUnchanged, with the tip, when the tree would not change.
func WriteStep(ctx context.Context, repo *gitrepo.Repo, st Step, now time.Time) (plumbing.Hash, error) {
	var meta []gitrepo.Change
	if st.MetadataDir != "" {
		meta = append(meta, gitrepo.Change{Path: st.MetadataDir, Delete: true})
		for _, name := range sortedKeys(st.MetadataFiles) {
			h, err := repo.WriteBlob(st.MetadataFiles[name])
			if err != nil {
				return plumbing.ZeroHash, err
			}
			meta = append(meta, gitrepo.Change{Path: st.MetadataDir + "/" + name, Mode: filemode.Regular, Hash: h})
		}
		for _, name := range sortedKeys(st.MetadataTrees) {
			meta = append(meta, gitrepo.Change{Path: st.MetadataDir + "/" + name, Mode: filemode.Dir, Hash: st.MetadataTrees[name]})
		}
		tc, err := st.Transcript.TreeChanges(repo, st.MetadataDir)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		meta = append(meta, tc...)
	}
	changes := append(append([]gitrepo.Change(nil), st.Changes...), meta...)
	unchanged := false
	h, err := repo.UpdateRefFunc(ctx, ShadowRef(st.Branch), func(tip plumbing.Hash) (plumbing.Hash, error) {
		unchanged = false
		base := st.BaseTree
		var parents []plumbing.Hash
		var tipTree plumbing.Hash
		all := changes
		if !tip.IsZero() {
			c, err := repo.Git.CommitObject(tip)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("read %s: %w", st.Branch, err)
			}
			tipTree, parents = c.TreeHash, []plumbing.Hash{tip}
			if !st.Snapshot {
				base = tipTree
			} else {
				keep, err := metadataGraft(repo, tipTree)
				if err != nil {
					return plumbing.ZeroHash, err
				}
				all = append(keep, changes...)
			}
		}
		tree, err := repo.BuildTree(base, all)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if !tip.IsZero() && tree == tipTree {
			unchanged = true
			return tip, nil
		}
		sig := repo.Author(now)
		return repo.WriteCommit(&object.Commit{Author: sig, Committer: sig, Message: st.Message, TreeHash: tree, ParentHashes: parents})
	})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write checkpoint on %s: %w", st.Branch, err)
	}
	if unchanged {
		return h, ErrStepUnchanged
	}
	return h, nil
}

// ErrStepMoved is returned by AmendStep when the step is no longer the tip
// of its branch.
var ErrStepMoved = errors.New("checkpoint: the step is no longer the tip of its shadow branch")

// AmendStep replaces step, the tip of branch, by a commit with the same
// parents, author, committer and message whose tree is step's with changes
// applied, and returns it: how a step's transcript is completed after the
// turn-end hook returned. The branch is moved by compare-and-swap; when
// step is no longer its tip, nothing is published and the error wraps
// ErrStepMoved.
func AmendStep(repo *gitrepo.Repo, branch string, step plumbing.Hash, changes []gitrepo.Change) (plumbing.Hash, error) {
	c, err := repo.Git.CommitObject(step)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("amend step %s: %w", step, err)
	}
	tree, err := repo.BuildTree(c.TreeHash, changes)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("amend step %s: %w", step, err)
	}
	if tree == c.TreeHash {
		return step, nil
	}
	h, err := repo.WriteCommit(&object.Commit{Author: c.Author, Committer: c.Committer, Message: c.Message, TreeHash: tree, ParentHashes: c.ParentHashes})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("amend step %s: %w", step, err)
	}
	if err := repo.UpdateRef(ShadowRef(branch), h, step); err != nil {
		if errors.Is(err, gitrepo.ErrRefChanged) {
			return plumbing.ZeroHash, fmt.Errorf("amend step %s on %s: %w", step, branch, ErrStepMoved)
		}
		return plumbing.ZeroHash, fmt.Errorf("amend step %s on %s: %w", step, branch, err)
	}
	return h, nil
}

// metadataGraft returns the change that carries a tree's .entire/metadata
// directory over into another tree (none when it has none).
func metadataGraft(repo *gitrepo.Repo, tree plumbing.Hash) ([]gitrepo.Change, error) {
	t, err := repo.Git.TreeObject(tree)
	if err != nil {
		return nil, fmt.Errorf("read shadow tree: %w", err)
	}
	dir := strings.TrimSuffix(MetadataDirPrefix, "/")
	e, err := t.FindEntry(dir)
	if err != nil || e.Mode != filemode.Dir {
		return []gitrepo.Change{{Path: dir, Delete: true}}, nil
	}
	return []gitrepo.Change{{Path: dir, Mode: filemode.Dir, Hash: e.Hash}}, nil
}

// StepMessage formats the message of a session step commit (SPEC 3.6).
// metadataDir may be empty (carry-forward commits), which leaves the
// Entire-Metadata trailer with an empty value.
func StepMessage(subject, metadataDir, sessionID, strategy string) string {
	return subject + "\n\n" + Trailers{
		{TrailerMetadata, metadataDir},
		{TrailerSession, sessionID},
		{TrailerStrategy, strategy},
	}.String()
}

// TaskStepMessage formats the message of a task step commit (SPEC 3.6).
func TaskStepMessage(subject, taskMetadataDir, sessionID, strategy string) string {
	return subject + "\n\n" + Trailers{
		{TrailerMetadataTask, taskMetadataDir},
		{TrailerSession, sessionID},
		{TrailerStrategy, strategy},
	}.String()
}

// StepInfo describes a shadow commit as read back.
type StepInfo struct {
	Commit      plumbing.Hash
	Subject     string
	SessionID   string
	MetadataDir string
	IsTask      bool
	// ToolUseID is the whole tool use ID of a task step (the subject has
	// only its first 12 characters); "" for other steps.
	ToolUseID string
	When      time.Time
	// RewoundTo is, for a step that records a rewind or an undo, the
	// point it restored (a commit hash; "undo" for an undo); "" for a turn.
	RewoundTo string
}

// RewindStepMessage formats the message of a step that records a rewind:
// a step's message with TrailerRewoundTo naming the point restored.
func RewindStepMessage(subject, metadataDir, sessionID, strategy, rewoundTo string) string {
	return subject + "\n\n" + Trailers{
		{TrailerMetadata, metadataDir},
		{TrailerSession, sessionID},
		{TrailerStrategy, strategy},
		{TrailerRewoundTo, rewoundTo},
	}.String()
}

// legacyRewindSubject is the subject of rewind steps written before
// TrailerRewoundTo: "Rewind to <sha7>: <the point's message>", or
// "Undo rewind: ..." for an undo.
var legacyRewindSubject = regexp.MustCompile(`^(?:Rewind to [0-9a-f]{7}: |Undo rewind: )`)

// ParseStep reads the trailers of a shadow commit.
func ParseStep(c *object.Commit) StepInfo {
	tr := ParseTrailers(c.Message)
	info := StepInfo{Commit: c.Hash, When: c.Author.When}
	info.Subject, _, _ = strings.Cut(c.Message, "\n")
	if s := tr.Sessions(); len(s) > 0 {
		info.SessionID = s[0]
	}
	if v, ok := tr.Get(TrailerMetadataTask); ok && v != "" {
		info.MetadataDir, info.IsTask, info.ToolUseID = v, true, TaskToolUseID(v)
	} else {
		info.MetadataDir, _ = tr.Get(TrailerMetadata)
	}
	if v, ok := tr.Get(TrailerRewoundTo); ok && v != "" {
		info.RewoundTo = v
	} else if m := legacyRewindSubject.FindString(info.Subject); m == "Undo rewind: " {
		info.RewoundTo = "undo"
	} else if m != "" {
		info.RewoundTo = strings.TrimSuffix(strings.TrimPrefix(m, "Rewind to "), ": ")
	}
	return info
}

// TaskToolUseID returns the tool use ID named by a task metadata path (an
// Entire-Metadata-Task value): ".../tasks/<id>" for a final task
// checkpoint, ".../tasks/<id>/checkpoints/<NNN>-<id>.json" for an
// incremental one (SPEC 3.6, 3.7). It returns "" for any other path.
func TaskToolUseID(path string) string {
	segs := strings.Split(strings.TrimSuffix(path, "/"), "/")
	n := len(segs)
	switch {
	case n >= 4 && segs[n-4] == "tasks" && segs[n-2] == "checkpoints":
		return segs[n-3]
	case n >= 2 && segs[n-2] == "tasks":
		return segs[n-1]
	}
	return ""
}
