package strategy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func TestParseRewrites(t *testing.T) {
	t.Parallel()
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	in := a + " " + c + "\n" + b + " " + c + " extra\nnot a line\n" + a + "\n\n" + c + " xyz\n"
	got := ParseRewrites(strings.NewReader(in))
	want := []Rewrite{
		{Old: plumbing.NewHash(a), New: plumbing.NewHash(c)},
		{Old: plumbing.NewHash(b), New: plumbing.NewHash(c)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseRewrites = %v, want %v", got, want)
	}
}

// chainTo reads the first parents of HEAD down to the oldest commit to
// write again, and no further than the rewrite's depth: a commit that is
// not there (a side branch of --rebase-merges) costs a walk as long as the
// rewrite, not one through the whole history.
func TestChainToIsBoundedByTheRewrite(t *testing.T) {
	t.Parallel()
	// A linear history of 5000 commits, hash i+1 the child of hash i.
	const n = 5000
	hash := func(i int) plumbing.Hash { return plumbing.Hash{byte(i >> 8), byte(i), 1} }
	reads := 0
	read := func(h plumbing.Hash) (*object.Commit, error) {
		reads++
		i := int(h[0])<<8 | int(h[1])
		c := &object.Commit{Hash: h}
		if i > 0 {
			c.ParentHashes = []plumbing.Hash{hash(i - 1)}
		}
		return c, nil
	}
	head := hash(n - 1)
	rewrites := []Rewrite{{Old: hash(1), New: hash(n - 1)}, {Old: hash(2), New: hash(n - 3)}}
	depth := rewriteDepth(rewrites)
	if depth != 2+maxUnlistedCommits {
		t.Fatalf("rewriteDepth = %d", depth)
	}

	chain, err := chainTo(read, head, map[plumbing.Hash][]checkpoint.ID{hash(n - 3): {"a1b2c3d4e5f6"}}, depth)
	if err != nil || len(chain) != 3 || chain[0].Hash != hash(n-3) || chain[2].Hash != head {
		t.Fatalf("chainTo = %d commits, %v", len(chain), err)
	}

	reads = 0
	chain, err = chainTo(read, head, map[plumbing.Hash][]checkpoint.ID{{0xff}: {"a1b2c3d4e5f6"}}, depth)
	if err != nil || chain != nil {
		t.Fatalf("chainTo of a commit not below HEAD = %d commits, %v", len(chain), err)
	}
	if reads > depth {
		t.Errorf("chainTo read %d commits, want at most %d", reads, depth)
	}
}
