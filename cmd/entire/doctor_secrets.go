package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/entirecli/entire/hooks"
	"github.com/entirecli/entire/redact"
	"github.com/entirecli/entire/secretscan"
)

// runDoctorSecrets implements `entire doctor --secrets [--purge]`.
func runDoctorSecrets(ctx context.Context, opts *doctorOptions) error {
	f := opts.f
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	s := loadSettings(repo)
	ropts := hooks.RedactionOptions(s)
	printRedactionProblems(f, ropts)
	r, err := redact.New(ropts)
	if err != nil {
		return err
	}
	fmt.Fprintln(f.IO.ErrOut, "Scanning the entire branches for secrets...")
	found, err := secretscan.Scan(ctx, repo, r, 0)
	if err != nil {
		return fmt.Errorf("scan stored data: %w", err)
	}
	out := f.IO.Out
	if len(found) == 0 {
		fmt.Fprintln(out, "No secrets found in stored checkpoints, hides or notes.")
		return nil
	}
	branches := map[string]bool{}
	fmt.Fprintf(out, "Found %d secret(s) in stored data:\n", len(found))
	for _, x := range found {
		where := x.Path
		if x.CheckpointID != "" {
			where = "checkpoint " + x.CheckpointID + " " + x.Path
		}
		fmt.Fprintf(out, "  %s  %s  rule %s  (blob %s, byte %d)\n", x.Ref, where, x.RuleID, x.Blob[:12], x.Offset)
		branches[x.Ref] = true
	}
	var names []string
	for b := range branches {
		names = append(names, b)
	}
	sort.Strings(names)
	if !opts.Purge {
		fmt.Fprintln(out, "\nTo purge them:")
		fmt.Fprintln(out, "  1. Rotate these credentials: anything pushed may have been copied.")
		fmt.Fprintln(out, "  2. Run `entire doctor --secrets --purge` to rewrite the branches above with the secrets redacted.")
		fmt.Fprintf(out, "  3. Force-push them to the checkpoint remote (%s), e.g. git push --force %s", s.CheckpointRemote(), s.CheckpointRemote())
		for _, b := range names {
			fmt.Fprintf(out, " %s", b)
		}
		fmt.Fprintln(out)
		return silentError(nil)
	}
	for _, b := range names {
		oldTip, newTip, err := secretscan.Purge(ctx, repo, r, b)
		if err != nil {
			return fmt.Errorf("purge %s: %w", b, err)
		}
		fmt.Fprintf(out, "Rewrote %s: %s -> %s\n", b, oldTip.String()[:7], newTip.String()[:7])
	}
	fmt.Fprintf(out, "Now force-push the rewritten branches to %s, and rotate the credentials.\n", s.CheckpointRemote())
	return nil
}
