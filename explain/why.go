package explain

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/lines"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// WhyView is the story of one line: who wrote it, in answer to what, with
// which tool call and diff, and how to go back there.
type WhyView struct {
	Line BlameLine
	// Prompt is the turn's whole prompt; Answer the assistant's text in
	// the turn.
	Prompt, Answer string
	// Tools are the turn's tool calls that name the file (all of the
	// turn's when none does).
	Tools []Entry
	// Diff is the turn's change to the file (unified, redacted; "" when
	// not recorded).
	Diff string
	// Branch is the branch the session worked on.
	Branch string
	// Resume and Rewind are the commands that go back to the session and
	// to the line's commit or step.
	Resume, Rewind string
}

// Why blames one line of path (in the work tree) and reads, from the
// checkpoint that records it, the turn that wrote it.
func (l *Loader) Why(ctx context.Context, b *Blamer, file string, n int) (*WhyView, error) {
	bl, err := b.Blame(ctx, file, "", n, n)
	if err != nil {
		return nil, err
	}
	if len(bl) != 1 {
		return nil, fmt.Errorf("%s has no line %d", file, n)
	}
	v := &WhyView{Line: bl[0]}
	ln := v.Line
	if ln.Commit != "" {
		v.Rewind = "entire rewind --to " + ln.Commit[:min(12, len(ln.Commit))]
	} else if ln.Step != "" {
		v.Rewind = "entire rewind --to " + ln.Step[:min(12, len(ln.Step))]
	}
	if ln.Commit == "" && ln.Step != "" && ln.Turn > 0 {
		l.whyStep(v)
		return v, nil
	}
	if ln.SessionID == "" || ln.CheckpointID == "" || ln.Turn == 0 {
		return v, nil
	}
	id, err := checkpoint.ParseID(ln.CheckpointID)
	if err != nil {
		return v, nil
	}
	cp, err := l.Store.Read(id)
	if err != nil {
		return v, nil
	}
	for _, s := range cp.Sessions {
		if s.Metadata.SessionID != ln.SessionID {
			continue
		}
		v.Branch = s.Metadata.Branch
		if v.Branch != "" {
			v.Resume = "entire resume " + v.Branch
		}
		if data, err := s.File(lines.File); err == nil {
			if rec, err := lines.Parse(data); err == nil {
				if t, ok := rec.TurnOf(ln.Turn); ok {
					v.Diff = t.Diffs[ln.Path]
				}
			}
		}
		all := s.Prompts()
		if ln.Turn-1 < len(all) {
			v.Prompt = all[ln.Turn-1]
		}
		sv, err := l.sessionView(s, ModeDefault)
		if err != nil {
			break
		}
		v.Answer, v.Tools = turnOf(sv.Transcript, ln.Turn-(len(all)-countPrompts(sv.Transcript)), ln.Path)
		break
	}
	return v, nil
}

// whyStep fills the story of a line not committed yet from the shadow
// step of the turn that wrote it: the session's transcript up to that
// turn, and the step's change to the file.
func (l *Loader) whyStep(v *WhyView) {
	c, err := l.Repo.Git.CommitObject(plumbing.NewHash(v.Line.Step))
	if err != nil {
		return
	}
	tv, err := l.TemporaryView(c, ModeDefault)
	if err != nil || len(tv.Sessions) == 0 {
		return
	}
	sv := tv.Sessions[0]
	v.Answer, v.Tools = turnOf(sv.Transcript, countPrompts(sv.Transcript), v.Line.Path)
	if n := len(sv.Prompts); n > 0 {
		v.Prompt = sv.Prompts[n-1]
	}
	var before string
	if c.NumParents() > 0 {
		if t, err := l.Repo.CommitTree(c.ParentHashes[0]); err == nil && t != nil {
			before = l.textAt(t, v.Line.Path)
		}
	}
	if t, err := c.Tree(); err == nil {
		v.Diff = lines.Unified(before, l.textAt(t, v.Line.Path))
	}
}

// textAt returns the text of a file in a tree ("" when absent).
func (l *Loader) textAt(t *object.Tree, p string) string {
	e := checkpoint.TreeEntry(t, p)
	if !e.Exists() {
		return ""
	}
	b, err := l.Repo.ReadBlob(e.Hash)
	if err != nil {
		return ""
	}
	return string(b)
}

// countPrompts counts the prompts of a condensed transcript.
func countPrompts(es []Entry) int {
	n := 0
	for _, e := range es {
		if e.Role == agent.RoleUser {
			n++
		}
	}
	return n
}

// turnOf returns the assistant's text and the tool calls naming file of
// the k-th turn (1-based) of a condensed transcript (all its tool calls
// when none names the file).
func turnOf(es []Entry, k int, file string) (string, []Entry) {
	if k < 1 {
		return "", nil
	}
	var answer []string
	var tools, named []Entry
	seen := 0
	for _, e := range es {
		if e.Role == agent.RoleUser {
			seen++
			if seen > k {
				break
			}
			continue
		}
		if seen != k {
			continue
		}
		switch e.Role {
		case agent.RoleAssistant:
			answer = append(answer, e.Text)
		case agent.RoleTool:
			tools = append(tools, e)
			if e.Text != "" && (strings.HasSuffix(e.Text, file) || strings.HasSuffix(e.Text, "/"+path.Base(file)) || strings.Contains(e.Text, file)) {
				named = append(named, e)
			}
		}
	}
	if len(named) > 0 {
		tools = named
	}
	return strings.Join(answer, "\n\n"), tools
}

// RenderWhy writes the story of a line. Nothing is escaped: the caller
// escapes.
func RenderWhy(w io.Writer, v *WhyView) {
	l := v.Line
	fmt.Fprintf(w, "%s:%d  %s\n\n", l.Path, l.Line, l.Text)
	fmt.Fprintf(w, "Written by: %s\n", whoWrote(l))
	if l.SessionID != "" {
		fmt.Fprintf(w, "Session:    %s (turn %d)\n", l.SessionID, l.Turn)
	}
	if l.CheckpointID != "" {
		fmt.Fprintf(w, "Checkpoint: %s\n", l.CheckpointID)
	}
	if l.Commit != "" {
		fmt.Fprintf(w, "Commit:     %s  %s  %s\n", l.Commit[:min(12, len(l.Commit))], l.Author, l.Time.Format("2006-01-02 15:04"))
	} else {
		fmt.Fprintln(w, "Commit:     not committed yet")
	}
	prompt := v.Prompt
	if prompt == "" {
		prompt = l.Prompt
	}
	if prompt != "" {
		fmt.Fprintf(w, "\nPrompt:\n%s\n", indent(strings.TrimRight(prompt, "\n")))
	}
	if v.Answer != "" {
		fmt.Fprintf(w, "\nAnswer:\n%s\n", indent(strings.TrimRight(Truncate(v.Answer, 2000), "\n")))
	}
	if len(v.Tools) > 0 {
		fmt.Fprintln(w, "\nTool calls:")
		for _, t := range v.Tools {
			fmt.Fprintf(w, "  %s %s\n", t.Tool, oneLine(t.Text))
		}
	}
	if v.Diff != "" {
		fmt.Fprintf(w, "\nThe turn's change to %s:\n%s", l.Path, v.Diff)
	}
	if v.Resume != "" || v.Rewind != "" {
		fmt.Fprintln(w, "\nGo back:")
		if v.Resume != "" {
			fmt.Fprintf(w, "  %s   # resume the session\n", v.Resume)
		}
		if v.Rewind != "" {
			fmt.Fprintf(w, "  %s   # restore the work tree there\n", v.Rewind)
		}
	}
}
