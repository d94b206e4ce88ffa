package gitrepo

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// Objects deflated in blocks are objects git reads back byte for byte, of
// every size around the block boundaries.
func TestDeflatedBlocksAreGitObjects(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	r := openTest(t, dir)
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < parallelDeflateAbove+3*deflateBlock {
		fmt.Fprintf(&b, "line %d: %x %s\n", b.Len(), rng.Uint64(), strings.Repeat("ab", rng.IntN(40)))
	}
	all := b.String()
	for _, size := range []int{parallelDeflateAbove, parallelDeflateAbove + 1, parallelDeflateAbove + deflateBlock - 7, len(all)} {
		body := all[:size]
		if !deflateInBlocks(int64(size)) {
			t.Skip("one core: objects are not deflated in blocks")
		}
		h, err := r.WriteBlobString(body)
		if err != nil {
			t.Fatal(err)
		}
		if want := HashObject(plumbing.BlobObject, []byte(body)); h != want {
			t.Fatalf("size %d: hash %s, want %s", size, h, want)
		}
		out, err := gittest.GitErr(dir, "cat-file", "blob", h.String())
		if err != nil {
			t.Fatalf("size %d: git cat-file: %v", size, err)
		}
		if out != body {
			t.Fatalf("size %d: git reads back %d bytes that differ", size, len(out))
		}
	}
	// Unreferenced blobs: fsck reads them all (no refs, no notices).
	if out, err := gittest.GitErr(dir, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
}

func TestCutBlocks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text []string
		size int
		want []string
	}{
		{[]string{""}, 4, []string{""}},
		{[]string{"", ""}, 4, []string{""}},
		{[]string{"ab", "cdefghij"}, 4, []string{"ab", "cdef", "ghij"}},
		{[]string{"abcdefgh"}, 4, []string{"abcd", "efgh"}},
		{[]string{"a", "", "b", "cdefgh", "i"}, 3, []string{"a", "b", "cde", "fgh", "i"}},
	} {
		got := cutBlocks(tc.text, tc.size)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("cutBlocks(%q, %d) = %q, want %q", tc.text, tc.size, got, tc.want)
		}
	}
}
