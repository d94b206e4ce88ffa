package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/conclusion"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ReadSlot returns the task records of a committed checkpoint's session
// slot (tasks/<id>/conclusion.json), ordered by start time, then ID. A task
// whose record has no ID gets its directory name. A slot without tasks
// gives nil; a corrupt record is an error naming it.
func ReadSlot(repo *gitrepo.Repo, sess *checkpoint.Session) ([]*conclusion.Task, error) {
	tree, err := repo.Git.TreeObject(sess.TreeHash())
	if err != nil {
		return nil, fmt.Errorf("read session slot: %w", err)
	}
	tasks, err := tree.Tree(TasksDir)
	if errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read session slot tasks: %w", err)
	}
	var out []*conclusion.Task
	for _, e := range tasks.Entries {
		if e.Mode != filemode.Dir {
			continue
		}
		data, err := sess.File(SlotPath(e.Name))
		if errors.Is(err, object.ErrFileNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		t, err := Decode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", SlotPath(e.Name), err)
		}
		if t.ID == "" {
			t.ID = e.Name
		}
		out = append(out, t)
	}
	sortTasks(out)
	return out, nil
}

// sortTasks orders tasks by start time (unknown first), then ID.
func sortTasks(ts []*conclusion.Task) {
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.Before(b.StartedAt)
		}
		return a.ID < b.ID
	})
}

// NewPresenceResolver returns an ArtifactResolver for display that marks
// each artifact "<ref> (present)" or "<ref> (missing)" by statting it
// (relative refs resolved against baseDir). URLs ("://", "git@"), blank
// refs, a blank baseDir and stat errors other than non-existence leave the
// ref unchanged. It is safe for concurrent use.
func NewPresenceResolver(baseDir string) conclusion.ArtifactResolver {
	return func(ref string) string {
		if strings.TrimSpace(baseDir) == "" || strings.TrimSpace(ref) == "" ||
			strings.Contains(ref, "://") || strings.HasPrefix(ref, "git@") {
			return ref
		}
		path := ref
		if !filepath.IsAbs(path) {
			path = filepath.Join(baseDir, path)
		}
		_, err := os.Stat(path)
		switch {
		case err == nil:
			return ref + " (present)"
		case errors.Is(err, fs.ErrNotExist):
			return ref + " (missing)"
		}
		return ref
	}
}

// Format renders one task for `entire explain`, lines joined by "\n"
// without a final newline:
//
//	Task <id> (<engine>, <task status>): <status>[, confidence 0.90][, synthesized]
//	  summary: <summary, continuation lines indented>
//	  follow_up: <follow-up>
//	  artifacts: <a> (present), <b> (missing)
//	  memory_refs: <x>, <y>
//	  warnings: <w1>; <w2>
//
// Empty lines are left out. artifacts (nil: no marking, see
// NewPresenceResolver) and memory (nil: refs as written) decorate the
// lists. A task without a conclusion gives the header ending in
// "no conclusion captured". A nil task gives "".
func Format(t *conclusion.Task, artifacts conclusion.ArtifactResolver, memory conclusion.MemoryRefResolver) string {
	if t == nil {
		return ""
	}
	var b strings.Builder
	engine := t.Engine
	if engine == "" {
		engine = "unknown agent"
	}
	status := string(t.Status)
	if status == "" {
		status = "unknown"
	}
	fmt.Fprintf(&b, "Task %s (%s, %s): ", t.ID, engine, status)
	c := t.Conclusion
	if c == nil {
		b.WriteString("no conclusion captured")
		return b.String()
	}
	b.WriteString(string(c.Status))
	if c.Confidence > 0 {
		fmt.Fprintf(&b, ", confidence %.2f", c.Confidence)
	}
	if c.Synthesized {
		b.WriteString(", synthesized")
	}
	field := func(name, v string) {
		if v = strings.TrimSpace(v); v != "" {
			b.WriteString("\n  " + name + ": " + strings.ReplaceAll(v, "\n", "\n    "))
		}
	}
	list := func(name string, refs []string, resolve func(string) string) {
		var parts []string
		for _, r := range refs {
			if r = strings.TrimSpace(r); r == "" {
				continue
			}
			if resolve != nil {
				r = resolve(r)
			}
			parts = append(parts, r)
		}
		field(name, strings.Join(parts, ", "))
	}
	field("summary", c.Summary)
	field("follow_up", c.FollowUp)
	list("artifacts", c.Artifacts, artifacts)
	list("memory_refs", c.MemoryRefs, memory)
	field("warnings", strings.Join(c.Warnings, "; "))
	return b.String()
}
