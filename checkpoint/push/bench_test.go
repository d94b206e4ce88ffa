package push

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
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

// BenchmarkGuard checks an incremental push (one new commit on a branch
// whose parent the remote has) in a repository of n user commits with a
// metadata branch of n/10 commits interleaved in time: the cost should
// follow the pushed range, not n.
func BenchmarkGuard(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			dir := gittest.Init(b)
			var in strings.Builder
			for i := 1; i <= n; i++ {
				fmt.Fprintf(&in, "commit refs/heads/main\ncommitter A <a@b> %d +0000\ndata 2\nc\n", 1_600_000_000+i*60)
				if i%10 == 0 {
					fmt.Fprintf(&in, "commit refs/heads/entire/checkpoints/v1\ncommitter A <a@b> %d +0000\ndata 2\nm\n", 1_600_000_000+i*60+1)
				}
			}
			cmd := exec.Command("git", "fast-import", "--quiet")
			cmd.Dir, cmd.Stdin = dir, strings.NewReader(in.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("fast-import: %v\n%s", err, out)
			}
			gittest.Git(b, dir, "update-ref", "refs/remotes/fork/main", "main~1")
			repo := openRepo(b, dir)
			line := "refs/heads/main " + gittest.Git(b, dir, "rev-parse", "main") + " refs/heads/main " + gittest.Git(b, dir, "rev-parse", "main~1") + "\n"
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := Guard(context.Background(), repo, strings.NewReader(line), Options{Destination: origin, Remote: "fork", PushSessions: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
