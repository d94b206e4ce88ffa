package commits

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// rewriteBranch is the fixture of TestE2EHistoryRewrites: on branch
// feature, session sess-1 wrote a.txt (commit "Add a", checkpoint a) and
// session sess-2 wrote b.txt (commit "Add b", checkpoint b); sess-1 then
// went on with work not committed (wip.txt).
type rewriteBranch struct {
	r    *e2etest.SessionRepo
	a, b string // the checkpoints of the two commits
}

func newRewriteBranch(t *testing.T) *rewriteBranch {
	t.Helper()
	r := e2etest.NewSessionRepo(t)
	r.MustGit("checkout", "-q", "-b", "feature")
	r.PlayTurn("add a", map[string]string{"a.txt": "a\n"})
	r.MustGit("add", "a.txt")
	r.MustGit("commit", "-q", "-m", "Add a")
	s2 := r.WithSession("sess-2")
	s2.PlayTurn("add b", map[string]string{"b.txt": "b\n"})
	r.MustGit("add", "b.txt")
	r.MustGit("commit", "-q", "-m", "Add b")
	fb := &rewriteBranch{r: r, a: e2etest.CheckpointAt(t, r.Dir, "HEAD~1"), b: e2etest.CheckpointAt(t, r.Dir, "HEAD")}
	if fb.a == "" || fb.b == "" || fb.a == fb.b {
		t.Fatalf("fixture checkpoints %q %q", fb.a, fb.b)
	}
	r.PlayTurn("keep going", map[string]string{"wip.txt": "wip\n"})
	return fb
}

// carried returns the checkpoints a commit carries, as entire reads them.
func carried(t *testing.T, dir, rev string) []string {
	t.Helper()
	var out []string
	for _, id := range checkpoint.CheckpointsOf(gittest.Git(t, dir, "log", "-1", "--format=%B", rev)) {
		out = append(out, id.String())
	}
	return out
}

// rewriteScript writes an executable shell script and returns its path.
func rewriteScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Links survive history rewrites (issue 14 item 10): each rewrite runs on
// a two-session, two-commit branch; afterwards every commit carries the
// checkpoints of the commits it replaces, `explain --commit` shows each of
// them, `resume` restores the sessions of every checkpoint the tip carries
// and lists them, and no checkpoint was written because of a trailer entire
// did not add for the commit.
func TestE2EHistoryRewrites(t *testing.T) {
	t.Parallel()
	type result struct {
		branch string              // to resume (the current branch)
		want   map[string][]string // rev -> checkpoints ("a", "b" stand for the fixture's)
		resume []string            // sessions resume restores
	}
	tests := []struct {
		name    string
		rewrite func(t *testing.T, fb *rewriteBranch) result
	}{
		{"amend -m", func(t *testing.T, fb *rewriteBranch) result {
			out := fb.r.MustGit("commit", "--amend", "-q", "-m", "Add b, reworded")
			if !strings.Contains(out, "Restored the Entire-Checkpoint trailer(s) "+fb.b) {
				t.Errorf("amend output does not say the trailer was restored:\n%s", out)
			}
			return result{"feature", map[string][]string{"HEAD": {"b"}, "HEAD~1": {"a"}}, []string{"sess-2"}}
		}},
		{"rebase -i squash", func(t *testing.T, fb *rewriteBranch) result {
			fb.rebase(t, "2s/^pick/squash/", "true")
			return result{"feature", map[string][]string{"HEAD": {"a", "b"}}, []string{"sess-1", "sess-2"}}
		}},
		{"rebase -i fixup", func(t *testing.T, fb *rewriteBranch) result {
			// The trailer of the fixup's dropped message is kept from the
			// sequencer's message: the commit is not written again.
			if out := fb.rebase(t, "2s/^pick/fixup/", "true"); strings.Contains(out, "Restored the Entire-Checkpoint") {
				t.Errorf("fixup needed a post-rewrite restore:\n%s\n%s", out, e2etest.LogText(fb.r.Dir))
			}
			if msg := gittest.Git(t, fb.r.Dir, "log", "-1", "--format=%B"); !strings.HasPrefix(msg, "Add a\n") {
				t.Errorf("fixup kept the fixup's message: %q", msg)
			}
			return result{"feature", map[string][]string{"HEAD": {"a", "b"}}, []string{"sess-1", "sess-2"}}
		}},
		{"rebase -i reword", func(t *testing.T, fb *rewriteBranch) result {
			fb.rebase(t, "1s/^pick/reword/", rewriteScript(t, "printf 'Add a, reworded\\n' >\"$1\"\n"))
			if s := gittest.Git(t, fb.r.Dir, "log", "-1", "--format=%s", "HEAD~1"); s != "Add a, reworded" {
				t.Errorf("reword: subject %q", s)
			}
			return result{"feature", map[string][]string{"HEAD": {"b"}, "HEAD~1": {"a"}}, []string{"sess-2"}}
		}},
		{"cherry-pick", func(t *testing.T, fb *rewriteBranch) result {
			fb.r.MustGit("checkout", "-q", "-b", "other", "main")
			fb.r.MustGit("cherry-pick", "feature~1", "feature")
			return result{"other", map[string][]string{"HEAD": {"b"}, "HEAD~1": {"a"}}, []string{"sess-2"}}
		}},
		{"pull --rebase", func(t *testing.T, fb *rewriteBranch) result {
			r := fb.r
			bare := filepath.Join(t.TempDir(), "remote.git")
			gittest.Git(t, r.Dir, "init", "-q", "--bare", "-b", "main", bare)
			r.MustGit("remote", "add", "origin", bare)
			r.MustGit("push", "-q", "origin", "main")
			e2etest.AwaitBackground(t)
			// Someone else pushes to main meanwhile.
			other := filepath.Join(t.TempDir(), "other")
			gittest.Git(t, r.Dir, "clone", "-q", bare, other)
			gittest.WriteFile(t, other, "upstream.txt", "up\n")
			gittest.Git(t, other, "add", "upstream.txt")
			gittest.Git(t, other, "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-q", "-m", "Upstream change")
			gittest.Git(t, other, "push", "-q", "origin", "main")
			r.MustGit("pull", "-q", "--rebase", "origin", "main")
			if s := gittest.Git(t, r.Dir, "log", "-1", "--format=%s", "HEAD~2"); s != "Upstream change" {
				t.Errorf("pull --rebase: HEAD~2 is %q", s)
			}
			return result{"feature", map[string][]string{"HEAD": {"b"}, "HEAD~1": {"a"}}, []string{"sess-2"}}
		}},
		{"merge --squash", func(t *testing.T, fb *rewriteBranch) result {
			r := fb.r
			r.MustGit("checkout", "-q", "main")
			r.MustGit("merge", "-q", "--squash", "feature")
			// The session's uncommitted work goes in too: the squash's
			// trailers must not pull it into their checkpoints.
			r.MustGit("add", "wip.txt")
			r.MustGit("commit", "-q", "--no-edit")
			if msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B"); !strings.Contains(msg, "Squashed commit of the following:") ||
				!strings.Contains(msg, "\n    Entire-Checkpoint: "+fb.a) {
				t.Errorf("merge --squash message: %q", msg)
			}
			r.MustGit("branch", "-q", "-D", "feature")
			return result{"main", map[string][]string{"HEAD": {"b", "a"}}, []string{"sess-1", "sess-2"}}
		}},
		{"forge squash merge", func(t *testing.T, fb *rewriteBranch) result {
			r := fb.r
			r.MustGit("checkout", "-q", "main")
			r.MustGit("checkout", "feature", "--", "a.txt", "b.txt")
			r.MustGit("add", "wip.txt")
			msg := "Feature (#7)\n\n* Add a\n\n  Entire-Checkpoint: " + fb.a + "\n\n* Add b\n\nSome body.\n\nEntire-Checkpoint: " + fb.b + "\n"
			r.MustGit("commit", "-q", "-m", msg)
			r.MustGit("branch", "-q", "-D", "feature")
			return result{"main", map[string][]string{"HEAD": {"a", "b"}}, []string{"sess-1", "sess-2"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fb := newRewriteBranch(t)
			r := fb.r
			metaBefore := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1")
			res := tt.rewrite(t, fb)
			named := map[string]string{"a": fb.a, "b": fb.b}
			for rev, want := range res.want {
				var ids []string
				for _, w := range want {
					ids = append(ids, named[w])
				}
				if got := carried(t, r.Dir, rev); !reflect.DeepEqual(got, ids) {
					t.Errorf("%s carries %v, want %v\n%s", rev, got, ids, gittest.Git(t, r.Dir, "log", "-1", "--format=%B", rev))
				}
				out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "explain", "--commit", rev, "--no-pager", "--short")
				if code != 0 {
					t.Fatalf("explain --commit %s: exit %d: %s", rev, code, errOut)
				}
				for _, id := range ids {
					if !strings.Contains(out, "Checkpoint: "+id+"\n") {
						t.Errorf("explain --commit %s does not show checkpoint %s:\n%s", rev, id, out)
					}
				}
			}
			if after := gittest.Git(t, r.Dir, "rev-parse", "entire/checkpoints/v1"); after != metaBefore {
				t.Errorf("the rewrite wrote to the metadata branch:\n%s", gittest.Git(t, r.Dir, "log", "--format=%s", metaBefore+".."+after))
			}
			// The transcripts are gone (another machine); resume brings back
			// those of every checkpoint the tip carries.
			projects := filepath.Dir(r.Transcript)
			for _, s := range []string{"sess-1", "sess-2"} {
				if err := os.Remove(filepath.Join(projects, s+".jsonl")); err != nil {
					t.Fatal(err)
				}
			}
			_, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, "", "resume", res.branch, "--force")
			if code != 0 {
				t.Fatalf("resume %s: exit %d: %s", res.branch, code, errOut)
			}
			for _, s := range []string{"sess-1", "sess-2"} {
				_, err := os.Stat(filepath.Join(projects, s+".jsonl"))
				want := slices.Contains(res.resume, s)
				if (err == nil) != want {
					t.Errorf("resume: transcript of %s restored = %v, want %v\n%s", s, err == nil, want, errOut)
				}
				if want && !strings.Contains(errOut, "claude -r "+s) {
					t.Errorf("resume does not list %s:\n%s", s, errOut)
				}
			}
			e2etest.AssertStoreClean(t, r.Dir, fb.a, fb.b)
		})
	}
}

// rebase runs `git rebase -i main` with a sed script as the sequence
// editor and editor as the message editor, and returns git's output.
func (fb *rewriteBranch) rebase(t *testing.T, sedScript, editor string) string {
	t.Helper()
	seq := rewriteScript(t, "sed -i -e '"+sedScript+"' \"$1\"\n")
	out, err := fb.r.GitIn(fb.r.Dir, []string{"GIT_SEQUENCE_EDITOR=" + seq, "GIT_EDITOR=" + editor}, "rebase", "-q", "-i", "main")
	if err != nil {
		t.Fatalf("git rebase -i: %v\n%s", err, out)
	}
	return out
}
