package strategy

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A commit is linked to a session when it holds the session's work, judged
// by content for the files the agent created (SPEC 5.2.3): prepare-commit-msg
// adds the trailer and post-commit condenses the session under it.
func TestManualCommitLinksByContent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// run plays the session and the user's edits; it returns the
		// paths the user commits.
		run  func(r *mcRepo) []string
		want bool
	}{
		{"a modified tracked file", func(r *mcRepo) []string {
			r.turn("s1", "edit the readme", map[string]string{"README.md": "hello\nagent\n"}, 1, 1)
			return []string{"README.md"}
		}, true},
		{"a deleted tracked file", func(r *mcRepo) []string {
			r.turn("s1", "drop the readme", map[string]string{"README.md": ""}, 1, 1)
			return []string{"README.md"}
		}, true},
		{"the agent's new file", func(r *mcRepo) []string {
			r.turn("s1", "add a file", map[string]string{"new.txt": "agent\n"}, 1, 1)
			return []string{"new.txt"}
		}, true},
		{"a new file the user wrote again", func(r *mcRepo) []string {
			r.turn("s1", "add a file", map[string]string{"new.txt": "agent\n"}, 1, 1)
			r.write(map[string]string{"new.txt": "mine\n"})
			return []string{"new.txt"}
		}, false},
		{"only the user's own file", func(r *mcRepo) []string {
			r.turn("s1", "add a file", map[string]string{"new.txt": "agent\n"}, 1, 1)
			r.write(map[string]string{"user.txt": "mine\n"})
			return []string{"user.txt"}
		}, false},
		{"a file the running turn wrote", func(r *mcRepo) []string {
			r.startTurn("s1", "write w")
			r.agentWrites("s1", map[string]string{"w.txt": "w\n"})
			return []string{"w.txt"}
		}, true},
		// While a turn runs, a change made since its start is the turn's,
		// whichever tool made it (an agent's shell writes files no
		// transcript names); one made before it is not.
		{"another file changed during a running turn", func(r *mcRepo) []string {
			r.startTurn("s1", "write w")
			r.agentWrites("s1", map[string]string{"w.txt": "w\n"})
			r.write(map[string]string{"user.txt": "mine\n"})
			return []string{"user.txt"}
		}, true},
		{"another file changed before a running turn", func(r *mcRepo) []string {
			r.write(map[string]string{"user.txt": "mine\n"})
			r.startTurn("s1", "write w")
			r.agentWrites("s1", map[string]string{"w.txt": "w\n"})
			return []string{"user.txt"}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newMCRepo(t)
			paths := tc.run(r)
			before := r.head()
			id := r.commit("user commit", paths...)
			if got := id != ""; got != tc.want {
				t.Fatalf("commit linked = %v (checkpoint %q), want %v; log:\n%s", got, id, tc.want, r.logs)
			}
			// A linked session, and an active one, moves onto the new
			// commit; an idle one whose work the commit does not hold
			// moves at its next turn start.
			st := r.state("s1")
			wantBase := before
			if tc.want || st.Phase == session.PhaseActive {
				wantBase = r.head()
			}
			if st.BaseCommit != wantBase {
				t.Errorf("session base %s, want %s (new HEAD %s)", st.BaseCommit, wantBase, r.head())
			}
			if !tc.want {
				if ids, _ := r.env.checkpoints().List(); len(ids) != 0 {
					t.Errorf("checkpoints written for an unlinked commit: %v", ids)
				}
				if st.LastCheckpointID != "" {
					t.Errorf("unlinked session records checkpoint %s", st.LastCheckpointID)
				}
				return
			}
			if r.slot(id, "s1") == nil {
				t.Errorf("checkpoint %s has no slot for the session", id)
			}
			if st.LastCheckpointID != id.String() {
				t.Errorf("session's last checkpoint %q, want %s", st.LastCheckpointID, id)
			}
		})
	}
}

// fakeConfirmer answers the commit-link question.
type fakeConfirmer struct {
	interactive, answer bool
	asked               [][2]string
}

func (c *fakeConfirmer) Interactive() bool { return c.interactive }
func (c *fakeConfirmer) ConfirmLink(agentLabel, prompt string) bool {
	c.asked = append(c.asked, [2]string{agentLabel, prompt})
	return c.answer
}

// What prepare-commit-msg does with a commit holding a session's work, by
// git's message source and the person at the terminal.
func TestPrepareCommitMsgSources(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, msg, source string
		confirmer         *fakeConfirmer
		wantTrailer       bool
		wantEditor        bool // the editor's commented explanation
		wantAsked         bool
	}{
		{name: "-m without a terminal", msg: "fix\n", source: "message", wantTrailer: true},
		{name: "-m, not interactive", msg: "fix\n", source: "message", confirmer: &fakeConfirmer{}, wantTrailer: true},
		{name: "-m, the person says yes", msg: "fix\n", source: "message", confirmer: &fakeConfirmer{interactive: true, answer: true}, wantTrailer: true, wantAsked: true},
		{name: "-m, the person says no", msg: "fix\n", source: "message", confirmer: &fakeConfirmer{interactive: true}, wantAsked: true},
		{name: "editor", msg: "\n# Please enter the commit message\n", source: "", confirmer: &fakeConfirmer{interactive: true}, wantTrailer: true, wantEditor: true},
		{name: "template", msg: "subject\n# comment\n", source: "template", wantTrailer: true, wantEditor: true},
		{name: "merge", msg: "Merge branch 'x'\n", source: "merge"},
		{name: "squash", msg: "squashed\n", source: "squash"},
		{name: "already linked", msg: "fix\n\nEntire-Checkpoint: 0123456789ab\n", source: "message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newMCRepo(t)
			if tc.confirmer != nil {
				r.env.Confirmer = tc.confirmer
			}
			r.turn("s1", "first prompt", map[string]string{"a.txt": "a\n"}, 1, 1)
			r.turn("s1", "second prompt", map[string]string{"a.txt": "a\nb\n"}, 1, 1)
			gittest.Git(t, r.dir, "add", "a.txt")
			got := r.prepare(tc.msg, tc.source)
			id, linked := checkpoint.CheckpointOf(got)
			if !tc.wantTrailer {
				if got != tc.msg {
					t.Errorf("message changed:\n%q\nwant\n%q", got, tc.msg)
				}
			} else if !linked {
				t.Fatalf("no trailer in:\n%s", got)
			}
			if tc.wantTrailer && !tc.wantEditor && got != checkpoint.AppendCheckpointTrailer(tc.msg, id) {
				t.Errorf("message:\n%q", got)
			}
			if tc.wantEditor && (!strings.Contains(got, "# Last Prompt: second prompt") || !strings.Contains(got, string(fakeAgentType)+" session context")) {
				t.Errorf("editor message lacks the explanation:\n%s", got)
			}
			var asked [][2]string
			if tc.confirmer != nil {
				asked = tc.confirmer.asked
			}
			if want := [][2]string{{string(fakeAgentType), "second prompt"}}; tc.wantAsked != (asked != nil) || tc.wantAsked && !reflect.DeepEqual(asked, want) {
				t.Errorf("asked %q, want asked: %v (%q)", asked, tc.wantAsked, want)
			}
		})
	}
}

// An amend of a linked commit gets its checkpoint's trailer back, and
// commit-msg strips a trailer that is a message's only content.
func TestAmendAndLoneTrailer(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	r.turn("s1", "write a", map[string]string{"a.txt": "a\n"}, 1, 1)
	id := r.commit("add a", "a.txt")
	if id == "" {
		t.Fatal("first commit not linked")
	}
	if got := r.prepare("add a, amended\n", "commit"); got != checkpoint.AppendCheckpointTrailer("add a, amended\n", id) {
		t.Errorf("amend message:\n%q", got)
	}

	for _, tc := range []struct{ msg, want string }{
		{"\n\nEntire-Checkpoint: " + id.String() + "\n", "\n\n"},
		{"subject\n\nEntire-Checkpoint: " + id.String() + "\n", "subject\n\nEntire-Checkpoint: " + id.String() + "\n"},
	} {
		path := filepath.Join(t.TempDir(), "MSG")
		if err := os.WriteFile(path, []byte(tc.msg), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := r.m.CommitMsg(context.Background(), path); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.want {
			t.Errorf("commit-msg on %q left %q, want %q", tc.msg, got, tc.want)
		}
	}
}
