package conclusion

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// synthesizedSummaryTailBytes bounds a synthesized summary: the last this
// many bytes of the task's output.
const synthesizedSummaryTailBytes = 1000

// DelegationOptions are the knobs Enrich needs. The zero value captures only
// conclusions the subagent wrote itself and stamps them with time.Now.
type DelegationOptions struct {
	// SynthesizeFallback makes Enrich derive a conclusion from the task's
	// output or error when the subagent wrote no block. When false, a
	// missing block means no conclusion.
	SynthesizeFallback bool
	// Now is the clock for CapturedAt; nil means time.Now.
	Now func() time.Time
}

// ProjectResolver maps a canonical project path to its registry id and
// display name. It returns empty strings for a path it does not know.
type ProjectResolver func(canonicalPath string) (id, name string)

// Enrich builds the durable Conclusion of a finished task. It parses
// task.Output for the block, then task.OutputTail (the end may survive there
// when Output was cut). When neither holds a block it returns nil, unless
// opts.SynthesizeFallback is set, in which case it synthesizes one
// (Synthesized = true):
//
//   - TaskCompleted: status success, or partial when ExitCode is set and not
//     0; the summary is the end of the output (see below);
//   - TaskFailed: failed; TaskCancelled: blocked. The summary is the trimmed
//     Error followed by "(exit code N)" when ExitCode is set, joined by one
//     space; when both are absent, the end of the output;
//   - any other task status: the default status, and the end of the output.
//
// The end of the output is OutputTail when it is not blank, else Output,
// trimmed, cut to its last 1000 bytes (moved forward to a rune boundary, so
// no character is split) and trimmed again.
//
// In every case it sets CapturedAt to opts.Now() in UTC, and an empty Status
// defaults from the task: TaskFailed gives failed, TaskCancelled blocked,
// anything else success. Parse's warnings are kept; Enrich adds none.
//
// Enrich also resolves the project, and this mutates task: when
// task.ProjectPath is set, a non-empty id from resolver sets ProjectID and a
// non-empty name sets ProjectName; without a name (or without a resolver),
// an empty ProjectName becomes the last element of ProjectPath.
//
// Enrich does not set task.Conclusion. It returns nil for a nil task and
// never panics on nil resolver or clock.
func Enrich(task *Task, opts DelegationOptions, resolver ProjectResolver) *Conclusion {
	if task == nil {
		return nil
	}
	c, ok := Parse(task.Output)
	if !ok {
		c, ok = Parse(task.OutputTail)
	}
	if !ok {
		if !opts.SynthesizeFallback {
			return nil
		}
		c = synthesize(task)
	}

	now := opts.Now
	if now == nil {
		now = time.Now
	}
	c.CapturedAt = now().UTC()
	if c.Status == "" {
		c.Status = defaultStatus(task.Status)
	}
	resolveProject(task, resolver)
	return c
}

// synthesize derives a conclusion from a task that wrote no block.
func synthesize(task *Task) *Conclusion {
	c := &Conclusion{Synthesized: true}
	switch task.Status {
	case TaskCompleted:
		c.Status = StatusSuccess
		if task.ExitCode != nil && *task.ExitCode != 0 {
			c.Status = StatusPartial
		}
		c.Summary = outputTail(task)
	case TaskFailed, TaskCancelled:
		c.Status = defaultStatus(task.Status)
		c.Summary = failureSummary(task)
	default:
		c.Summary = outputTail(task)
	}
	return c
}

// defaultStatus is the Status a conclusion gets when it states none.
func defaultStatus(s TaskStatus) Status {
	switch s {
	case TaskFailed:
		return StatusFailed
	case TaskCancelled:
		return StatusBlocked
	}
	return StatusSuccess
}

// failureSummary is the trimmed error and exit code, or the output's end
// when there is neither.
func failureSummary(task *Task) string {
	parts := make([]string, 0, 2)
	if e := strings.TrimSpace(task.Error); e != "" {
		parts = append(parts, e)
	}
	if task.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("(exit code %d)", *task.ExitCode))
	}
	if len(parts) == 0 {
		return outputTail(task)
	}
	return strings.Join(parts, " ")
}

// outputTail is the trimmed end of the task's output, at most
// synthesizedSummaryTailBytes long and never starting inside a rune.
func outputTail(task *Task) string {
	src := task.OutputTail
	if strings.TrimSpace(src) == "" {
		src = task.Output
	}
	s := strings.TrimSpace(src)
	if len(s) > synthesizedSummaryTailBytes {
		cut := len(s) - synthesizedSummaryTailBytes
		for i := 0; i < 3 && cut < len(s) && !utf8.RuneStart(s[cut]); i++ {
			cut++
		}
		s = strings.TrimSpace(s[cut:])
	}
	return s
}

// resolveProject fills task.ProjectID and task.ProjectName from resolver or
// from ProjectPath.
func resolveProject(task *Task, resolver ProjectResolver) {
	if task.ProjectPath == "" {
		return
	}
	if resolver != nil {
		id, name := resolver(task.ProjectPath)
		if id != "" {
			task.ProjectID = id
		}
		if name != "" {
			task.ProjectName = name
			return
		}
	}
	if task.ProjectName == "" {
		task.ProjectName = filepath.Base(task.ProjectPath)
	}
}
