package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/checkpoint/push"
	"github.com/entirecli/entire/checkpoint/secretscan"
	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/redact"
)

// runDoctorSecrets implements `entire doctor --secrets [--purge]`.
func runDoctorSecrets(ctx context.Context, opts *doctorOptions) error {
	f := opts.f
	repo, err := f.OpenRepo()
	if err != nil {
		return err
	}
	s := loadSettings(repo)
	printRedactionProblems(f, redact.SettingsOptions(s))
	r, err := redact.FromSettings(s, nil, nil).Build()
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
		// Paths come from teammates' checkpoints and rule IDs from settings
		// they may commit.
		fmt.Fprintf(out, "  %s  %s  rule %s  (blob %s, byte %d)\n", x.Ref, iostreams.Escape(where), iostreams.Escape(x.RuleID), x.Blob[:12], x.Offset)
		branches[x.Ref] = true
	}
	var names []string
	for b := range branches {
		names = append(names, b)
	}
	sort.Strings(names)
	// The remote and the copies' ref names are not ours (settings a
	// teammate committed, a remote's ls-remote): quoted for the shell the
	// command is pasted into, escaped for the terminal it is printed on.
	dest := push.Resolve(ctx, repo, s, push.ResolveOptions{Getenv: f.Getenv})
	remote := dest.FetchArg()
	if remote == "" {
		remote = push.DefaultCheckpointRemote
	}
	pushCmd := "git push --force " + iostreams.ShellQuote(remote)
	for _, b := range names {
		pushCmd += " " + iostreams.ShellQuote(b)
	}
	if !opts.Purge {
		fmt.Fprintln(out, "\nTo purge them:")
		fmt.Fprintln(out, "  1. Rotate these credentials: anything pushed may have been copied.")
		fmt.Fprintln(out, "  2. Run `entire doctor --secrets --purge` to rewrite the branches above with the secrets redacted.")
		fmt.Fprintf(out, "  3. Push the rewritten branches to the checkpoint remote: %s\n", iostreams.Escape(pushCmd))
		return silentError(nil)
	}
	var recs []secretscan.PurgeRecord
	for _, b := range names {
		rec, err := secretscan.Purge(ctx, repo, r, b, f.Now())
		if err != nil {
			return fmt.Errorf("purge %s: %w", b, err)
		}
		fmt.Fprintf(out, "Rewrote %s: %s -> %s (%d commits)\n", b, rec.OldTip[:7], rec.NewTip[:7], len(rec.Rewritten))
		if len(rec.Rewritten) > 0 {
			recs = append(recs, rec)
		}
	}
	// The record travels with the metadata branch: every clone's pre-push
	// refuses the rewritten commits and moves its new checkpoints onto the
	// purged history.
	if err := secretscan.RecordPurges(ctx, repo, recs, f.Now()); err != nil {
		return err
	}
	for _, rec := range recs {
		if strings.HasPrefix(rec.Branch, checkpoint.RefPrefix) {
			// Its record goes with the purged checkpoint refs.
			pushCmd += " " + string(secretscan.PurgesRef)
			break
		}
	}
	for _, b := range names {
		if err := secretscan.ExpireReflogs(ctx, repo, b); err != nil {
			return err
		}
		if err := secretscan.ForgetRemoteTracking(ctx, repo, b); err != nil {
			return err
		}
	}
	// Copies of the old history on the remote (a mirror pushed before the
	// purge) are deleted by the same push.
	copies, err := secretscan.RemoteCopies(ctx, repo, remote, recs)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %v; other refs there that hold the old history (from a `git push --mirror`) are not deleted by the push below.\n", err)
	}
	for _, ref := range copies {
		pushCmd += " " + iostreams.ShellQuote(":"+ref)
	}
	fmt.Fprintf(out, "Now push the rewritten branches (teammates' clones follow at their next push), and rotate the credentials:\n  %s\n", iostreams.Escape(pushCmd))
	return nil
}
