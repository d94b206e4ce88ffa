package rewind

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// recordingAsker records resume's questions and answers them with err.
type recordingAsker struct {
	asked []string
	err   error
}

func (a *recordingAsker) ConfirmFetch(branch string) error {
	a.asked = append(a.asked, "fetch "+branch)
	return a.err
}

func (a *recordingAsker) ConfirmOlder(p OlderCheckpoint) error {
	a.asked = append(a.asked, "older "+p.Branch)
	return a.err
}

func (a *recordingAsker) ConfirmOverwrite(newer []NewerTranscript) error {
	a.asked = append(a.asked, "overwrite")
	return a.err
}

// Resume's decisions before anything is restored: what it refuses, what it
// asks, what it says when the branch has no checkpoint.
func TestResumeWithoutCheckpoints(t *testing.T) {
	t.Parallel()
	errDeclined := errors.New("declined")
	for _, tc := range []struct {
		name    string
		branch  string
		setup   func(t *testing.T, dir string)
		askErr  error
		wantErr string
		wantOut string
		asked   string
		head    string // the branch checked out afterwards
	}{
		{name: "invalid name", branch: "-x", wantErr: `invalid branch name "-x"`, head: "main"},
		{name: "unknown without origin", branch: "nope", wantErr: "branch 'nope' not found locally or on origin", head: "main"},
		{name: "fetch declined", branch: "nope", askErr: errDeclined, wantErr: "declined", asked: "fetch nope", head: "main",
			setup: func(t *testing.T, dir string) {
				bare := filepath.Join(t.TempDir(), "origin.git")
				gittest.Git(t, dir, "init", "-q", "--bare", bare)
				gittest.Git(t, dir, "remote", "add", "origin", bare)
			}},
		{name: "no checkpoint", branch: "feature", head: "feature",
			wantOut: "Switched to branch 'feature'\nNo Entire checkpoint found on branch 'feature'\n",
			setup: func(t *testing.T, dir string) {
				gittest.Git(t, dir, "checkout", "-q", "-b", "feature")
				gittest.WriteFile(t, dir, "f.txt", "f\n")
				gittest.Git(t, dir, "add", "-A")
				gittest.Git(t, dir, "commit", "-q", "-m", "Feature work")
				gittest.Git(t, dir, "checkout", "-q", "main")
			}},
		{name: "uncommitted changes", branch: "feature", head: "main",
			wantErr: "you have uncommitted changes. Please commit or stash them first",
			setup: func(t *testing.T, dir string) {
				gittest.Git(t, dir, "branch", "feature")
				gittest.WriteFile(t, dir, "README.md", "changed\n")
			}},
		{name: "current branch", branch: "main", head: "main",
			wantOut: "No Entire checkpoint found on branch 'main'\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			ask := &recordingAsker{err: tc.askErr}
			res, err := Resume(context.Background(), ResumeOptions{Repo: repo, Branch: tc.branch, Out: &out, Ask: ask})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Resume: %v", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Fatalf("Resume error %v, want %q", err, tc.wantErr)
			case tc.askErr != nil && !errors.Is(err, tc.askErr):
				t.Errorf("the asker's error is not returned as it is: %v", err)
			}
			if err == nil && (res == nil || len(res.Restored) != 0 || len(res.Others) != 0) {
				t.Errorf("result %+v, want nothing restored", res)
			}
			if out.String() != tc.wantOut {
				t.Errorf("out %q, want %q", out.String(), tc.wantOut)
			}
			if got := strings.Join(ask.asked, "; "); got != tc.asked {
				t.Errorf("asked %q, want %q", got, tc.asked)
			}
			if head := gittest.Git(t, dir, "branch", "--show-current"); head != tc.head {
				t.Errorf("on %q, want %q", head, tc.head)
			}
		})
	}
}

// What resume reports goes through iostreams.Escape: the errors it
// reports may name what a teammate's checkpoint or the remote holds.
func TestResumeReportsEscaped(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	r := &resumer{ResumeOptions: ResumeOptions{Out: &out}}
	r.printf("Could not restore %s notes: %v\n", "claude-code", errors.New("bad note key \"\x1b]0;pwned\x07\""))
	if got := out.String(); strings.ContainsAny(got, "\x1b\x07") || !strings.HasSuffix(got, "\"\n") {
		t.Errorf("printed %q, want it escaped, ending in its newline", got)
	}
}
