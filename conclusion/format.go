package conclusion

import (
	"fmt"
	"path/filepath"
	"strings"
)

// FormatForParent renders the message that tells the parent agent how a
// delegated task ended: pointers, not dumps. The header carries only
// software-owned metadata; the body carries what the subagent reported. The
// layout, byte for byte (lines joined by "\n", no trailing newline):
//
//	[delegated-result task=<ID> engine=<Engine> project=<label> status=<status>[ confidence=<0.00>]]
//	summary: <trimmed summary>
//	follow_up: <trimmed follow-up>
//	artifacts: <a>, <b>
//	memory_refs: <x>, <y>
//	warnings: <w1>, <w2>
//
// Each body line is omitted when its value is empty. confidence= appears only
// when Confidence > 0 (printed with %.2f). Artifacts and memory refs are
// trimmed and blank ones skipped. When res supplies a resolver for a field,
// that field is instead a header line ("artifacts:") followed by one
// "  - <resolved>" line per entry, each entry passed trimmed to the resolver;
// a nil res or nil resolver gives exactly the comma-joined form.
//
// The project label is the trimmed ProjectName, else the last element of
// ProjectPath, else of WorkDir, else "unknown". A nil task gives
// "[delegated-result] (no task)"; a task without a Conclusion gives the
// header with the task's own status followed by " (no conclusion captured)".
//
// FormatForParent does not modify task and is safe for concurrent use if the
// resolvers are.
func FormatForParent(task *Task, res *ResolveOptions) string {
	if task == nil {
		return "[delegated-result] (no task)"
	}
	c := task.Conclusion
	if c == nil {
		return fmt.Sprintf("[delegated-result task=%s engine=%s project=%s status=%s] (no conclusion captured)",
			task.ID, task.Engine, projectLabel(task), task.Status)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "[delegated-result task=%s engine=%s project=%s status=%s",
		task.ID, task.Engine, projectLabel(task), c.Status)
	if c.Confidence > 0 {
		fmt.Fprintf(&b, " confidence=%.2f", c.Confidence)
	}
	b.WriteByte(']')

	if s := strings.TrimSpace(c.Summary); s != "" {
		b.WriteString("\nsummary: " + s)
	}
	if s := strings.TrimSpace(c.FollowUp); s != "" {
		b.WriteString("\nfollow_up: " + s)
	}
	var artifacts, memory func(string) string
	if res != nil {
		artifacts, memory = res.Artifacts, res.Memory
	}
	writeList(&b, "artifacts", c.Artifacts, artifacts)
	writeList(&b, "memory_refs", c.MemoryRefs, memory)
	if len(c.Warnings) > 0 {
		b.WriteString("\nwarnings: " + strings.Join(c.Warnings, ", "))
	}
	return b.String()
}

// writeList writes one list field: comma-joined without a resolver, one
// resolved entry per line with one. Nothing is written when no non-blank
// entry remains.
func writeList(b *strings.Builder, field string, entries []string, resolve func(string) string) {
	var kept []string
	for _, e := range entries {
		if e = strings.TrimSpace(e); e != "" {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return
	}
	if resolve == nil {
		b.WriteString("\n" + field + ": " + strings.Join(kept, ", "))
		return
	}
	b.WriteString("\n" + field + ":")
	for _, e := range kept {
		b.WriteString("\n  - " + resolve(e))
	}
}

// projectLabel names the task's project for the header.
func projectLabel(task *Task) string {
	if name := strings.TrimSpace(task.ProjectName); name != "" {
		return name
	}
	if task.ProjectPath != "" {
		return filepath.Base(task.ProjectPath)
	}
	if task.WorkDir != "" {
		return filepath.Base(task.WorkDir)
	}
	return "unknown"
}
