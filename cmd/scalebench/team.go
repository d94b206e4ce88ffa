//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// The team scenario: --team-clones developers clone one remote, half over
// file:// and half over git daemon on 127.0.0.1. In every round each runs
// an agent turn on a branch of its own and commits it; then all of them
// push at the same moment, every pre-push hook pushing its checkpoint to
// the one metadata branch. Each push is measured (bound: 30 s, the hook's
// retries included) and must not say it left checkpoints behind; once all
// have returned, every Entire-Checkpoint trailer on the remote must name a
// checkpoint on its metadata branch.

// teamPush is the name of a measured push of the team scenario.
const teamPush = "git push (all clones at once)"

// trailerRe finds the Entire-Checkpoint trailers of commit messages.
var trailerRe = regexp.MustCompile(`(?m)^Entire-Checkpoint: ([0-9a-f]{12})$`)

func (b *bench) team(seed *scenario) error {
	n, rounds := b.opts.teamClones, b.opts.teamRounds
	if n < 1 || rounds < 1 {
		return fmt.Errorf("--team-clones and --team-rounds must be at least 1")
	}
	root := filepath.Join(b.work, seed.name)
	served := filepath.Join(root, "served")
	bare := filepath.Join(served, "team.git")
	if err := os.MkdirAll(served, 0o755); err != nil {
		return err
	}
	if _, err := seed.git("init", "-q", "--bare", "-b", "main", bare); err != nil {
		return err
	}
	if _, err := seed.git("push", "-q", "--no-verify", bare, "main"); err != nil {
		return err
	}
	url, stop, err := gittest.StartDaemon(served, seed.env)
	if err != nil {
		return err
	}
	defer stop()

	devs := make([]*scenario, n)
	for i := range devs {
		from, how := bare, "file://"
		if i%2 == 1 {
			from, how = url+"/team.git", "git://"
		}
		d, err := b.teamClone(seed.name, i, from)
		if err != nil {
			return fmt.Errorf("clone %d: %w", i, err)
		}
		d.transport = how
		devs[i] = d
	}
	fmt.Fprintf(os.Stderr, "scalebench: team: %d clones of %s, %d rounds\n", n, bare, rounds)

	var outputsMu sync.Mutex
	var leftBehind []string
	for round := range rounds {
		// The turns and commits run side by side; the pushes wait for
		// all of them and start together.
		if err := eachDev(devs, func(d *scenario) error { return d.teamTurn(round) }); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		err := eachDev(devs, func(d *scenario) error {
			out, err := d.teamPushMeasured(fmt.Sprintf("%s, round %d of %d", d.transport, round+1, rounds))
			if strings.Contains(out, "not yet on") || strings.Contains(out, "could not push") {
				outputsMu.Lock()
				leftBehind = append(leftBehind, fmt.Sprintf("%s round %d:\n%s", d.name, round+1, out))
				outputsMu.Unlock()
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
	}
	var walls []float64
	for _, d := range devs {
		seed.results = append(seed.results, d.results...)
		for _, r := range d.results {
			walls = append(walls, r.WallMS)
		}
	}
	sort.Float64s(walls)
	fmt.Fprintf(os.Stderr, "scalebench: team: %d pushes, median %.1f s, slowest %.1f s\n",
		len(walls), walls[len(walls)/2]/1000, walls[len(walls)-1]/1000)
	return seed.checkRemote(bare, devs, leftBehind)
}

// eachDev runs f for every clone at once and returns their errors.
func eachDev(devs []*scenario, f func(*scenario) error) error {
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for i, d := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(d); err != nil {
				errs[i] = fmt.Errorf("%s: %w", d.name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// teamClone clones the team's remote as developer i: a home, a session and
// the git hooks of its own (`entire enable`, as a teammate runs it after
// cloning a project that has entire's settings), on branch dev<i>.
func (b *bench) teamClone(name string, i int, from string) (*scenario, error) {
	d, err := b.scenarioAt(name, filepath.Join(b.work, name, fmt.Sprintf("dev%d", i)))
	if err != nil {
		return nil, err
	}
	d.quiet = true
	if err := os.Remove(d.repo); err != nil { // git clone makes it
		return nil, err
	}
	cmd := exec.Command("git", "clone", "-q", from, d.repo)
	cmd.Env = d.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git clone %s: %w\n%s", from, err, out)
	}
	if err := d.enable(); err != nil {
		return nil, err
	}
	if out, err := d.git("status", "--porcelain"); err != nil || strings.TrimSpace(out) != "" {
		return nil, fmt.Errorf("entire enable in a clone changed the project's files:\n%s%v", out, err)
	}
	if _, err := d.git("checkout", "-q", "-b", fmt.Sprintf("dev%d", i)); err != nil {
		return nil, err
	}
	d.branch = fmt.Sprintf("dev%d", i)
	os.Remove(d.shimLog)
	return d, nil
}
