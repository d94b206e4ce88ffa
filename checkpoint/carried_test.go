package checkpoint

import (
	"reflect"
	"strings"
	"testing"
)

const (
	idA = "aaaaaaaaaaa1"
	idB = "bbbbbbbbbbb2"
	idC = "ccccccccccc3"
)

// mergeSquashMsg is the message `git merge --squash` prepares, as git 2.39
// writes it.
const mergeSquashMsg = `Squashed commit of the following:

commit 414ab8c65f8f7a2f6187c03444e1332c247903fd
Author: a <a@b>
Date:   Tue Nov 24 01:41:39 2026 +0000

    second

    Entire-Checkpoint: ` + idB + `

commit 2085e21b237568edf91c7810633adf48f0b6aac4
Author: a <a@b>
Date:   Tue Nov 24 01:40:47 2026 +0000

    first

    body of first
    Entire-Checkpoint: ` + idA + `
`

func TestCheckpointsOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  string
		want []ID
	}{
		{"none", "just a subject\n", nil},
		{"trailer", "Subject\n\nEntire-Checkpoint: " + idA + "\n", []ID{idA}},
		{"rebase squash paragraphs", "first\n\nEntire-Checkpoint: " + idA + "\n\nsecond\n\nEntire-Checkpoint: " + idB + "\n", []ID{idA, idB}},
		{"two trailers in one block", "first\n\nEntire-Checkpoint: " + idA + "\nEntire-Checkpoint: " + idB + "\n", []ID{idA, idB}},
		{"merge --squash", mergeSquashMsg, []ID{idB, idA}},
		{"merge --squash with own trailer", mergeSquashMsg + "\nEntire-Checkpoint: " + idC + "\n", []ID{idB, idA, idC}},
		{"forge squash plain", "Feature (#12)\n\n* first\n\nEntire-Checkpoint: " + idA + "\n\n* second\n\nbody\n\nEntire-Checkpoint: " + idB + "\n", []ID{idA, idB}},
		{"forge squash indented", "Feature (#12)\n\n* first\n  Entire-Checkpoint: " + idA + "\n\n* second\n\n    Entire-Checkpoint: " + idB + "\n", []ID{idA, idB}},
		{"indented quotation outside a squash", "Docs\n\n    Entire-Checkpoint: " + idA + "\n", nil},
		{"comments skipped", "Subject\n\n# Entire-Checkpoint: " + idA + "\n", nil},
		{"lower-case key", "Subject\n\nentire-checkpoint: " + idA + "\n", []ID{idA}},
		{"invalid values skipped", "Subject\n\nEntire-Checkpoint: " + idA + "x\nEntire-Checkpoint: ABCDEFABCDEF\nEntire-Checkpoint:\n", nil},
		{"duplicates once", "a\n\nEntire-Checkpoint: " + idA + "\n\nb\n\nEntire-Checkpoint: " + idA + "\n", []ID{idA}},
		{"crlf", "Subject\r\n\r\nEntire-Checkpoint: " + idA + "\r\n", []ID{idA}},
		{"bullet is no trailer", "* Entire-Checkpoint: " + idA + "\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := CheckpointsOf(tt.msg)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CheckpointsOf(%q) = %v, want %v", tt.msg, got, tt.want)
			}
			for _, id := range tt.want {
				if !Carries(tt.msg, id) {
					t.Errorf("Carries(%q, %s) = false", tt.msg, id)
				}
			}
			if Carries(tt.msg, "0123456789ab") {
				t.Errorf("Carries an ID the message does not hold")
			}
		})
	}
}

func TestCommentedCheckpoints(t *testing.T) {
	t.Parallel()
	// The message `git rebase -i` prepares for pick + fixup (git 2.39).
	msg := "# This is a combination of 2 commits.\n# This is the 1st commit message:\n\nfirst\n\nEntire-Checkpoint: " + idA +
		"\n\n# The commit message #2 will be skipped:\n\n# fixup! first\n#\n# Entire-Checkpoint: " + idB + "\n"
	if got := CommentedCheckpoints(msg); !reflect.DeepEqual(got, []ID{idB}) {
		t.Fatalf("CommentedCheckpoints = %v, want [%s]", got, idB)
	}
	out, changed := AddCheckpointTrailers(msg, CommentedCheckpoints(msg))
	if !changed {
		t.Fatal("AddCheckpointTrailers changed nothing")
	}
	want := "# This is a combination of 2 commits.\n# This is the 1st commit message:\n\nfirst\n\nEntire-Checkpoint: " + idA + "\nEntire-Checkpoint: " + idB +
		"\n\n# The commit message #2 will be skipped:\n\n# fixup! first\n#\n# Entire-Checkpoint: " + idB + "\n"
	if out != want {
		t.Errorf("AddCheckpointTrailers =\n%q\nwant\n%q", out, want)
	}
}

func TestAddCheckpointTrailers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, msg string
		ids       []ID
		want      string
	}{
		{"after a subject", "Subject", []ID{idA}, "Subject\n\nEntire-Checkpoint: " + idA + "\n"},
		{"subject that looks like a trailer", "fix: the bug\n", []ID{idA}, "fix: the bug\n\nEntire-Checkpoint: " + idA + "\n"},
		{"into the trailer block", "Subject\n\nSigned-off-by: x\n", []ID{idA, idB}, "Subject\n\nSigned-off-by: x\nEntire-Checkpoint: " + idA + "\nEntire-Checkpoint: " + idB + "\n"},
		{"already carried", "Subject\n\nEntire-Checkpoint: " + idA + "\n", []ID{idA}, "Subject\n\nEntire-Checkpoint: " + idA + "\n"},
		{"carried in a squash body", mergeSquashMsg, []ID{idA}, mergeSquashMsg},
		{"before git's comments", "Subject\n\n# Please enter the commit message\n", []ID{idA}, "Subject\n\nEntire-Checkpoint: " + idA + "\n\n# Please enter the commit message\n"},
		{"empty", "", []ID{idA}, "Entire-Checkpoint: " + idA + "\n"},
		{"invalid IDs ignored", "Subject\n", []ID{"nope"}, "Subject\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, changed := AddCheckpointTrailers(tt.msg, tt.ids)
			if got != tt.want {
				t.Errorf("AddCheckpointTrailers(%q) =\n%q\nwant\n%q", tt.msg, got, tt.want)
			}
			if changed != (got != tt.msg) {
				t.Errorf("changed = %v for %q -> %q", changed, tt.msg, got)
			}
		})
	}
}

// FuzzCheckpointsOf checks the squash-body parser on any message: it
// returns valid IDs without duplicates, among them CheckpointOf's, and
// AddCheckpointTrailers makes a message carry the IDs given while keeping
// those it carried.
func FuzzCheckpointsOf(f *testing.F) {
	for _, s := range []string{
		"", "Subject\n\nEntire-Checkpoint: " + idA + "\n", mergeSquashMsg,
		"F (#1)\n\n* a\n\n  Entire-Checkpoint: " + idA + "\n\n* b\nEntire-Checkpoint: " + idB,
		"# Entire-Checkpoint: " + idC + "\nfix: x\r\n\r\nEntire-Checkpoint: " + idB + "\r\n",
	} {
		f.Add(s, idC)
	}
	f.Fuzz(func(t *testing.T, msg, extra string) {
		ids := CheckpointsOf(msg)
		seen := map[ID]bool{}
		for _, id := range ids {
			if !id.Valid() || seen[id] {
				t.Fatalf("CheckpointsOf(%q) = %v: invalid or repeated %q", msg, ids, id)
			}
			seen[id] = true
		}
		if id, ok := CheckpointOf(msg); ok && !seen[id] {
			t.Fatalf("CheckpointsOf(%q) = %v misses CheckpointOf's %s", msg, ids, id)
		}
		want := []ID{ID(extra), idA}
		out, changed := AddCheckpointTrailers(msg, want)
		for _, id := range append(ids, want...) {
			if id.Valid() && !Carries(out, id) {
				t.Fatalf("AddCheckpointTrailers(%q, %v) = %q does not carry %s", msg, want, out, id)
			}
		}
		if !changed && out != msg {
			t.Fatalf("unchanged result differs")
		}
		if strings.Count(out, "\n") < strings.Count(msg, "\n") {
			t.Fatalf("lines lost: %q -> %q", msg, out)
		}
		for _, id := range CommentedCheckpoints(msg) {
			if !id.Valid() {
				t.Fatalf("CommentedCheckpoints gave %q", id)
			}
		}
	})
}
