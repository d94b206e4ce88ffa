package push

import (
	"fmt"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/gitrepo"
	"github.com/entirecli/entire/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// BenchmarkMergeTrees merges two metadata trees that share n checkpoints
// and each add one of their own to the same shard: the cost should follow
// the differing paths, not n.
func BenchmarkMergeTrees(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("shared=%d", n), func(b *testing.B) {
			repo := openRepo(b, gittest.Init(b))
			blob, err := repo.WriteBlob([]byte(`{"session_id":"s"}`))
			if err != nil {
				b.Fatal(err)
			}
			var changes []gitrepo.Change
			for i := 0; i < n; i++ {
				id := checkpoint.ID(fmt.Sprintf("%012x", uint64(i)*0x9e3779b97f4a7c15>>16))
				for _, p := range []string{"metadata.json", "0/metadata.json", "0/full.jsonl"} {
					changes = append(changes, gitrepo.Change{Path: id.Shard() + "/" + p, Mode: filemode.Regular, Hash: blob})
				}
			}
			base, err := repo.BuildTree(plumbing.ZeroHash, changes)
			if err != nil {
				b.Fatal(err)
			}
			side := func(id string) plumbing.Hash {
				h, err := repo.BuildTree(base, []gitrepo.Change{{Path: checkpoint.ID(id).Shard() + "/0/metadata.json", Mode: filemode.Regular, Hash: blob}})
				if err != nil {
					b.Fatal(err)
				}
				return h
			}
			local, remote := side("ffffffffff01"), side("ffffffffff02")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := MergeTrees(repo, local, remote, MergeOptions{Checkpoints: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
