package push

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/entirecli/entire/internal/atomicfile"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// Remote-tracking refs say what a remote had at its URL of the time.
// After `git remote set-url origin <new repository>`, origin's stale refs
// made the pre-push believe the new, empty repository had the user's
// branch (so the metadata branch was pushed first, and a forge made it
// the default branch) and had the session data (so nothing was pushed,
// and a killed background push was never made up for). Which URL the
// tracking refs of each destination belong to is recorded when entire
// pushes or fetches; where the URL differs (or was never recorded), the
// refs are not trusted: the remote is asked.

// trackURLsFile (in the git common directory) maps remote-tracking
// namespaces to the URL their refs were last brought in line with.
const trackURLsFile = "entire-tracking-urls.json"

// currentURL is the URL the destination's tracking refs belong to: a
// repository of its own's URL, or the configured remote's url.
func currentURL(repo *gitrepo.Repo, dest Destination) string {
	if dest.Remote == "" {
		return dest.URL
	}
	if r, ok := findRemote(repo, dest.Remote); ok && len(r.urls) > 0 {
		return r.urls[0]
	}
	return ""
}

func readTrackURLs(repo *gitrepo.Repo) map[string]string {
	m := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(repo.CommonDir, trackURLsFile)); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

// trackingTrusted reports whether the refs under refs/remotes/<track>/
// belong to url.
func trackingTrusted(repo *gitrepo.Repo, track, url string) bool {
	return url != "" && readTrackURLs(repo)[track] == url
}

// recordTrackURL records that the refs of track belong to url. Two
// writers at once keep one record; the other is asked for again.
func recordTrackURL(repo *gitrepo.Repo, track, url string) error {
	m := readTrackURLs(repo)
	if m[track] == url {
		return nil
	}
	m[track] = url
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(repo.CommonDir, trackURLsFile), append(data, '\n'), 0o644)
}

// refreshTracking brings the destination's remote-tracking refs of the
// entire branches in line with what the remote has (one `git ls-remote`),
// when they are not known to belong to its current URL, and records the
// URL. A branch the remote lacks, or whose commit is not here, loses its
// tracking ref. It reports whether the refs were trusted before: when not,
// the other tracking refs of the remote (the user's branches) are as
// stale.
func (r *runner) refreshTracking(ctx context.Context, dest Destination) (trusted bool, err error) {
	url := currentURL(r.repo, dest)
	if trackingTrusted(r.repo, dest.Track(), url) {
		return true, nil
	}
	out, err := r.run(ctx, "ls-remote", "--", dest.arg(), "refs/heads/entire/*")
	if err != nil {
		return false, fmt.Errorf("ask %s for its session data branches: %w", dest.Name(), err)
	}
	remote := map[string]plumbing.Hash{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		sha, ref, ok := strings.Cut(sc.Text(), "\t")
		if b, isHead := strings.CutPrefix(ref, "refs/heads/"); ok && isHead && branchPattern.MatchString(b) {
			remote[b] = plumbing.NewHash(sha)
		}
	}
	known, err := r.repo.ListRefs("refs/remotes/" + dest.Track() + "/entire/")
	if err != nil {
		return false, err
	}
	for name, cur := range known {
		b := strings.TrimPrefix(string(name), "refs/remotes/"+dest.Track()+"/")
		if !branchPattern.MatchString(b) {
			continue
		}
		want, has := remote[b]
		if has && want == cur {
			continue
		}
		if !has || !r.repo.HasObject(want) {
			if err := r.repo.DeleteRef(ctx, name, cur); err != nil {
				return false, err
			}
			continue
		}
		if err := r.repo.UpdateRef(name, want, cur); err != nil {
			return false, err
		}
	}
	for b, want := range remote {
		name := dest.TrackingRef(b)
		if _, seen := known[name]; seen || !r.repo.HasObject(want) {
			continue
		}
		if err := r.repo.UpdateRef(name, want, plumbing.ZeroHash); err != nil {
			return false, err
		}
	}
	return false, recordTrackURL(r.repo, dest.Track(), url)
}
