package explain

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
)

// FileDiff is the change of one file: its hunks' lines, for a page.
type FileDiff struct {
	Path  string
	Lines []DiffLine
	// Binary reports a binary file (no lines); Cut, lines left out.
	Binary bool
	Cut    int
}

// DiffLine is one line of a hunk: Kind is '+', '-', ' ' or '@' (a hunk
// header).
type DiffLine struct {
	Kind byte
	Text string
}

// diffLimit bounds the diff a page shows: bytes read from git, and lines
// per file.
const (
	diffLimit     = 2 << 20
	diffFileLines = 2000
)

// CommitDiff returns what commit sha changed against its first parent
// (everything, for a root commit), entire's own metadata left out; cut
// reports a diff past diffLimit, shown in part.
func (l *Loader) CommitDiff(ctx context.Context, sha string) (files []FileDiff, cut bool, err error) {
	if !isHex(sha) {
		return nil, false, fmt.Errorf("not a commit: %q", sha)
	}
	out, err := l.Repo.RunGit(ctx, "show", "--no-color", "--no-ext-diff", "--format=", "-M", "--first-parent", "--patch", sha, "--", ".", ":(exclude).entire")
	if err != nil {
		return nil, false, fmt.Errorf("diff of %s: %w", sha, err)
	}
	files, cut = ParseDiff(out)
	return files, cut, nil
}

// TreeDiff returns what changed from commit or tree a to b, entire's
// own metadata left out (a shadow step against the one before it).
func (l *Loader) TreeDiff(ctx context.Context, a, b string) ([]FileDiff, bool, error) {
	if !isHex(a) || !isHex(b) {
		return nil, false, fmt.Errorf("not a revision: %q %q", a, b)
	}
	out, err := l.Repo.RunGit(ctx, "diff", "--no-color", "--no-ext-diff", "-M", a, b, "--", ".", ":(exclude).entire")
	if err != nil {
		return nil, false, fmt.Errorf("diff %s..%s: %w", a, b, err)
	}
	files, cut := ParseDiff(out)
	return files, cut, nil
}

func isHex(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ParseDiff reads git's unified diff, up to diffLimit bytes and
// diffFileLines lines a file; cut reports a diff read in part.
func ParseDiff(out []byte) (files []FileDiff, cut bool) {
	if len(out) > diffLimit {
		out, cut = out[:diffLimit], true
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), diffLimit+1)
	var f *FileDiff
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			files = append(files, FileDiff{Path: diffPath(line)})
			f = &files[len(files)-1]
			continue
		case f == nil:
			continue
		case strings.HasPrefix(line, "+++ "):
			if p := strings.TrimPrefix(line, "+++ "); p != "/dev/null" {
				f.Path = strings.TrimPrefix(p, "b/")
			}
			continue
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "index "), strings.HasPrefix(line, "new file"),
			strings.HasPrefix(line, "deleted file"), strings.HasPrefix(line, "similarity"), strings.HasPrefix(line, "rename "),
			strings.HasPrefix(line, "old mode"), strings.HasPrefix(line, "new mode"):
			continue
		case strings.HasPrefix(line, "Binary files"):
			f.Binary = true
			continue
		}
		if len(f.Lines) >= diffFileLines {
			f.Cut++
			continue
		}
		switch {
		case strings.HasPrefix(line, "@@"):
			f.Lines = append(f.Lines, DiffLine{Kind: '@', Text: line})
		case line == "":
			f.Lines = append(f.Lines, DiffLine{Kind: ' '})
		case line[0] == '+' || line[0] == '-' || line[0] == ' ':
			f.Lines = append(f.Lines, DiffLine{Kind: line[0], Text: line[1:]})
		}
	}
	return files, cut
}

// diffPath is the new path of a "diff --git a/x b/y" line.
func diffPath(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}
