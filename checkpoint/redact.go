package checkpoint

import "sort"

// What the store redacts.
//
// A Store made WithRedaction passes every free-text string of the
// metadata it writes through the redaction at write time, once, whoever
// built the metadata: a session slot's metadata.json (files_touched,
// branch, transcript_path, the summary), the root metadata.json
// (files_touched, branch) and the commit message's custom subject and
// message. Generated identifiers and fixed vocabulary (checkpoint, session,
// turn and tool use IDs, transcript identifiers, strategy, agent, CLI
// version) and the trailers are left alone: they are entire's own or the
// agent's IDs, and must stay parseable. Transcripts, prompts, context and
// Files are the caller's to redact (SessionWrite), since they must be
// redacted before they are cut or as JSON.

// Redacted returns a copy of m whose free-text strings went through
// redact: each path of FilesTouched (the list then sorted, duplicates
// dropped: two paths may redact alike), Branch, TranscriptPath and the
// Summary. A transcript path that redaction would change is dropped
// instead: a restore then uses the agent's own naming rather than a path
// that does not exist. m is not modified.
func (m SessionMetadata) Redacted(redact func(string) string) SessionMetadata {
	m.FilesTouched = redactPaths(m.FilesTouched, redact)
	m.Branch = redact(m.Branch)
	if m.TranscriptPath != "" && redact(m.TranscriptPath) != m.TranscriptPath {
		m.TranscriptPath = ""
	}
	m.Summary = m.Summary.Redacted(redact)
	return m
}

// Redacted returns a copy of s with every string passed through redact;
// nil for nil.
func (s *Summary) Redacted(redact func(string) string) *Summary {
	if s == nil {
		return nil
	}
	all := func(xs []string) []string {
		if xs == nil {
			return nil
		}
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = redact(x)
		}
		return out
	}
	out := Summary{
		Intent:    redact(s.Intent),
		Outcome:   redact(s.Outcome),
		Learnings: Learnings{Repo: all(s.Learnings.Repo), Workflow: all(s.Learnings.Workflow)},
		Friction:  all(s.Friction),
		OpenItems: all(s.OpenItems),
	}
	if s.Learnings.Code != nil {
		out.Learnings.Code = make([]CodeLearning, len(s.Learnings.Code))
		for i, c := range s.Learnings.Code {
			c.Path, c.Finding = redact(c.Path), redact(c.Finding)
			out.Learnings.Code[i] = c
		}
	}
	return &out
}

// redacted returns a copy of r with its files touched and branch redacted
// (see SessionMetadata.Redacted).
func (r RootMetadata) redacted(redact func(string) string) RootMetadata {
	r.FilesTouched = redactPaths(r.FilesTouched, redact)
	r.Branch = redact(r.Branch)
	return r
}

// redactPaths redacts each path and returns them sorted without
// duplicates; an empty (not nil) list stays empty.
func redactPaths(paths []string, redact func(string) string) []string {
	if paths == nil {
		return nil
	}
	seen := make(map[string]bool, len(paths))
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p = redact(p); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
