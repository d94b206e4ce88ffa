package strategy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// What a condensation puts in a checkpoint: the sessions whose work the
// commit holds, each with every step since its last checkpoint, all its
// prompts so far, the token usage of its checkpoint scope, and the files it
// touched; the other sessions move onto the new commit with their work.
func TestManualCommitCondenses(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	r.turn("s1", "one", map[string]string{"a.txt": "a\n"}, 10, 2)
	r.turn("s1", "two", map[string]string{"b.txt": "b\n"}, 5, 1)
	r.turn("s2", "other work", map[string]string{"c.txt": "c\n"}, 7, 7)
	oldBranch := shadowBranch(r.state("s1"))
	if oldBranch != shadowBranch(r.state("s2")) {
		t.Fatal("the two sessions should share a shadow branch")
	}

	id := r.commit("a and b", "a.txt", "b.txt")
	if id == "" {
		t.Fatal("commit not linked")
	}
	cp, err := r.env.checkpoints().Read(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Sessions) != 1 || cp.Sessions[0].Metadata.SessionID != "s1" {
		t.Fatalf("checkpoint sessions: %d, first %+v", len(cp.Sessions), cp.Sessions[0].Metadata)
	}
	slot := cp.Sessions[0]
	meta := slot.Metadata
	if meta.CheckpointsCount != 2 || !reflect.DeepEqual(meta.FilesTouched, []string{"a.txt", "b.txt"}) ||
		meta.Agent != fakeAgentType || meta.Strategy != checkpoint.StrategyManualCommit || meta.Branch != "main" {
		t.Errorf("slot metadata %+v", meta)
	}
	wantTokens := agent.TokenUsage{InputTokens: 15, OutputTokens: 3, APICallCount: 2}
	if meta.TokenUsage == nil || *meta.TokenUsage != wantTokens {
		t.Errorf("token usage %+v, want %+v", meta.TokenUsage, wantTokens)
	}
	if p := slot.Prompts(); !reflect.DeepEqual(p, []string{"one", "two"}) {
		t.Errorf("prompts %q", p)
	}
	transcript, err := slot.Transcript()
	if err != nil {
		t.Fatal(err)
	}
	if want := readFile(t, r.transcripts["s1"]); string(transcript) != want {
		t.Errorf("stored transcript:\n%s\nwant:\n%s", transcript, want)
	}

	head := r.head()
	s1, s2 := r.state("s1"), r.state("s2")
	if s1.BaseCommit != head || s1.CheckpointCount != 0 || s1.FilesTouched != nil || s1.TokenUsage != nil || s1.LastCheckpointID != id.String() {
		t.Errorf("condensed session state: base %s count %d files %v tokens %v last %s", s1.BaseCommit, s1.CheckpointCount, s1.FilesTouched, s1.TokenUsage, s1.LastCheckpointID)
	}
	if s2.BaseCommit != head || s2.CheckpointCount != 1 || !reflect.DeepEqual(s2.FilesTouched, []string{"c.txt"}) || s2.LastCheckpointID != "" {
		t.Errorf("other session state: base %s count %d files %v last %q", s2.BaseCommit, s2.CheckpointCount, s2.FilesTouched, s2.LastCheckpointID)
	}
	if tip := r.shadowTip(s2); tip == "" {
		t.Error("the other session's steps were not moved onto the new commit")
	} else if got := gittest.Git(t, r.dir, "show", tip+":c.txt"); got != "c" {
		t.Errorf("moved step holds c.txt = %q", got)
	}
	if out := gittest.Git(t, r.dir, "branch", "--list", oldBranch); out != "" {
		t.Errorf("old shadow branch %s kept", oldBranch)
	}

	// The next checkpoint of s1 covers only what came after: one step,
	// its tokens, but every prompt of the session so far.
	r.turn("s1", "three", map[string]string{"a.txt": "a\nmore\n"}, 4, 4)
	id2 := r.commit("more a", "a.txt")
	if id2 == "" || id2 == id {
		t.Fatalf("second commit linked to %q (first %s)", id2, id)
	}
	slot2 := r.slot(id2, "s1")
	if slot2 == nil {
		t.Fatal("second checkpoint lacks s1")
	}
	m2 := slot2.Metadata
	if m2.CheckpointsCount != 1 || !reflect.DeepEqual(m2.FilesTouched, []string{"a.txt"}) ||
		m2.TokenUsage == nil || *m2.TokenUsage != (agent.TokenUsage{InputTokens: 4, OutputTokens: 4, APICallCount: 1}) {
		t.Errorf("second slot metadata %+v tokens %+v", m2, m2.TokenUsage)
	}
	if p := slot2.Prompts(); !reflect.DeepEqual(p, []string{"one", "two", "three"}) {
		t.Errorf("second slot prompts %q", p)
	}
	if r.slot(id2, "s2") != nil {
		t.Error("s2, whose work is still uncommitted, joined the second checkpoint")
	}
}

// A commit made in the middle of a turn is condensed at once and its
// transcript completed at the turn's end (SPEC 5.2.6).
func TestManualCommitMidTurn(t *testing.T) {
	t.Parallel()
	r := newMCRepo(t)
	in := r.startTurn("s1", "write and commit")
	r.agentWrites("s1", map[string]string{"w.txt": "w\n"})
	id := r.commit("agent commits", "w.txt")
	if id == "" {
		t.Fatal("mid-turn commit not linked")
	}
	if st := r.state("s1"); !reflect.DeepEqual(st.TurnCheckpointIDs, []string{id.String()}) {
		t.Errorf("turn checkpoints %v", st.TurnCheckpointIDs)
	}
	r.endTurn(in, "committed it", 3, 3)
	transcript, err := r.slot(id, "s1").Transcript()
	if err != nil {
		t.Fatal(err)
	}
	if want := readFile(t, r.transcripts["s1"]); string(transcript) != want {
		t.Errorf("checkpoint transcript not completed at the turn end:\n%s\nwant:\n%s", transcript, want)
	}
	if st := r.state("s1"); st.TurnCheckpointIDs != nil {
		t.Errorf("turn checkpoints left: %v", st.TurnCheckpointIDs)
	}
}

// What a commit leaves out of a session's work is carried forward onto the
// new commit's shadow branch, so a later commit of it is linked too; what
// the user discarded is not.
func TestManualCommitCarriesForward(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// run plays the session and the user; it commits.
		run func(r *mcRepo) checkpoint.ID
		// carried are the files carried forward with their content.
		carried map[string]string
	}{
		{"a file left out", func(r *mcRepo) checkpoint.ID {
			r.turn("s1", "two files", map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, 1, 1)
			return r.commit("only a", "a.txt")
		}, map[string]string{"b.txt": "b\n"}},
		{"a file deleted before the commit", func(r *mcRepo) checkpoint.ID {
			r.turn("s1", "two files", map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, 1, 1)
			r.write(map[string]string{"b.txt": ""})
			return r.commit("only a", "a.txt")
		}, nil},
		{"a change reverted before the commit", func(r *mcRepo) checkpoint.ID {
			r.turn("s1", "two files", map[string]string{"a.txt": "a\n", "README.md": "changed\n"}, 1, 1)
			gittest.Git(r.t, r.dir, "checkout", "--", "README.md")
			return r.commit("only a", "a.txt")
		}, nil},
		{"the user's version committed whole", func(r *mcRepo) checkpoint.ID {
			r.turn("s1", "one file", map[string]string{"README.md": "hello\nagent\n"}, 1, 1)
			r.write(map[string]string{"README.md": "hello\nagent\nuser\n"})
			return r.commit("readme, edited", "README.md")
		}, nil},
		{"part of a file staged", func(r *mcRepo) checkpoint.ID {
			r.turn("s1", "one file", map[string]string{"README.md": "hello\n1\n2\n"}, 1, 1)
			r.write(map[string]string{"README.md": "hello\n1\n"})
			gittest.Git(r.t, r.dir, "add", "README.md")
			r.write(map[string]string{"README.md": "hello\n1\n2\n"})
			return r.commit("first line")
		}, map[string]string{"README.md": "hello\n1\n2\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newMCRepo(t)
			if id := tc.run(r); id == "" {
				t.Fatal("commit not linked")
			}
			st := r.state("s1")
			tip := r.shadowTip(st)
			if len(tc.carried) == 0 {
				if st.FilesTouched != nil || st.CheckpointCount != 0 || tip != "" {
					t.Errorf("carried forward: files %v count %d shadow tip %q", st.FilesTouched, st.CheckpointCount, tip)
				}
				return
			}
			if !reflect.DeepEqual(st.FilesTouched, sortedKeys(tc.carried)) || st.CheckpointCount != 1 || tip == "" {
				t.Fatalf("carried: files %v count %d shadow tip %q", st.FilesTouched, st.CheckpointCount, tip)
			}
			if subject := gittest.Git(t, r.dir, "log", "-1", "--format=%s", tip); subject != "carry forward: uncommitted session files" {
				t.Errorf("carry-forward step subject %q", subject)
			}
			// The step snapshots the new commit's tree plus the carried
			// files.
			if diff := gittest.Git(t, r.dir, "diff", "--name-only", r.head(), tip, "--", ".", ":!.entire"); diff != strings.Join(sortedKeys(tc.carried), "\n") {
				t.Errorf("carry-forward step differs from HEAD in %q", diff)
			}
			for p, want := range tc.carried {
				if got := gittest.Git(t, r.dir, "show", tip+":"+p); got+"\n" != want {
					t.Errorf("carried %s = %q, want %q", p, got, want)
				}
			}
			// Committing the rest is linked to the session again.
			id2 := r.commit("the rest", sortedKeys(tc.carried)...)
			if id2 == "" {
				t.Fatal("commit of the carried work not linked")
			}
			if s := r.slot(id2, "s1"); s == nil || !reflect.DeepEqual(s.Metadata.FilesTouched, sortedKeys(tc.carried)) {
				t.Errorf("second checkpoint slot %+v", s)
			}
			if st := r.state("s1"); st.FilesTouched != nil || st.CheckpointCount != 0 {
				t.Errorf("after the rest: files %v count %d", st.FilesTouched, st.CheckpointCount)
			}
		})
	}
}
