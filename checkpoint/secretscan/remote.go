package secretscan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// remoteListTimeout bounds the `git ls-remote` of RemoteCopies.
const remoteListTimeout = 30 * time.Second

// RemoteCopies returns the refs of remote, other than the purged branches
// themselves, whose tips (peeled, for annotated tags) are commits the
// purges in recs rewrote: copies of the old history that a force push of
// the branches leaves on the remote, such as the remote-tracking refs a
// `git push --mirror` made before the purge put there. Deleting them
// (`:<ref>` in the same push) is what makes the purge reach every copy the
// remote holds. A ref whose tip is an older commit than the purge's roots
// holds no purged commit and is not listed.
func RemoteCopies(ctx context.Context, repo *gitrepo.Repo, remote string, recs []PurgeRecord) ([]string, error) {
	old := map[string]bool{}
	own := map[string]bool{}
	for _, rec := range recs {
		if strings.HasPrefix(rec.Branch, "refs/") {
			own[rec.Branch] = true // a checkpoint ref
		} else {
			own["refs/heads/"+rec.Branch] = true
		}
		for _, id := range rec.Rewritten {
			old[id] = true
		}
	}
	if len(old) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, remoteListTimeout)
	defer cancel()
	// go-git's remote listing does not run git's transports (ssh configs,
	// credential helpers, insteadOf) the way the user's pushes do.
	out, err := repo.RunGit(ctx, "ls-remote", "--", remote)
	if err != nil {
		return nil, fmt.Errorf("list the refs of %s: %w", remote, err)
	}
	var copies []string
	for _, line := range strings.Split(string(out), "\n") {
		sha, ref, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok {
			continue
		}
		ref = strings.TrimSuffix(ref, "^{}")
		// The names are the remote's: one git would not create (control
		// characters, "..") cannot be deleted by a push either.
		if plumbing.ReferenceName(ref).Validate() != nil {
			continue
		}
		if old[sha] && !own[ref] && ref != "HEAD" {
			copies = append(copies, ref)
		}
	}
	slices.Sort(copies)
	return slices.Compact(copies), nil
}
