package githook

import (
	"fmt"
	"strings"
)

// Marker is the comment that identifies a hook file as ours. Every version
// of our shims, including those of Entire 0.4.x, contains it; a file without
// it is foreign and is never rewritten or removed.
const Marker = "# Entire CLI hooks"

// VerdictEnv names the environment variable through which the pre-push shim
// passes entire the path of a file it created (empty, mode 0600) for entire's
// verdict. Entire refuses a push only by writing PushRefusal to that file
// and exiting with status 3: the shim blocks the push only when both are
// there, so no crash, whatever its status, ever blocks a push.
const VerdictEnv = "ENTIRE_PRE_PUSH_VERDICT"

// PushRefusal is the verdict that refuses a push (see VerdictEnv).
const PushRefusal = "entire: refuse push"

// PushRefusedStatus is the exit status that goes with PushRefusal; older
// shims (before VerdictEnv) read it alone.
const PushRefusedStatus = 3

// BackupSuffix is appended to a foreign hook's name when it is moved aside.
const BackupSuffix = ".pre-entire"

// Hook names, in the order git runs them during a commit and push.
const (
	PrepareCommitMsg = "prepare-commit-msg"
	CommitMsg        = "commit-msg"
	PostCommit       = "post-commit"
	PostRewrite      = "post-rewrite"
	PrePush          = "pre-push"
)

// Names returns the hook names entire installs.
func Names() []string {
	return []string{PrepareCommitMsg, CommitMsg, PostCommit, PostRewrite, PrePush}
}

// hookSpec is what differs between the shims: the arguments passed on, the
// redirections, the failure handling (SPEC 2.4), and a comment saying why.
type hookSpec struct {
	comment string
	args    string
	suffix  string
}

// specFor returns the shim details of hook (SPEC 2.4 failure semantics).
func specFor(hook string) (hookSpec, bool) {
	switch hook {
	case PrepareCommitMsg:
		return hookSpec{
			comment: "# Adds the Entire-Checkpoint trailer when an agent session changed the files. Never blocks.",
			args:    `"$1" "$2"`,
			suffix:  "2>/dev/null || true",
		}, true
	case CommitMsg:
		return hookSpec{
			comment: "# Strips an Entire-Checkpoint trailer left without agent changes. Never blocks.",
			args:    `"$1"`,
			suffix:  "|| true",
		}, true
	case PostCommit:
		return hookSpec{
			comment: "# Condenses agent sessions into the commit's checkpoint. Never blocks.",
			suffix:  "2>/dev/null || true",
		}, true
	case PostRewrite:
		return hookSpec{
			comment: "# Puts back the Entire-Checkpoint trailers an amend or rebase dropped. Never blocks.",
			args:    `"$1"`,
		}, true
	case PrePush:
		return hookSpec{
			comment: "# Pushes the session logs to the checkpoint remote alongside your push, and refuses a push that would carry entire's branches anywhere else (only when entire writes its refusal to $verdict and exits 3).",
			args:    `"$1" "$2"`,
		}, true
	}
	return hookSpec{}, false
}

// Script returns the shim for hook. localDev makes it run
// `go run ./cmd/entire/main.go` instead of `entire`. chain appends the block
// that runs <hook>.pre-entire (when executable) after ours, with the same
// arguments, and exits with its status; for pre-push, ours then reads
// /dev/null so the chained hook receives git's ref list on stdin (entire's
// pre-push handler does not read stdin).
//
// If the command is not on PATH the shim prints one warning line to stderr
// and skips it; it never blocks the git operation for that reason.
func Script(hook string, localDev, chain bool) (string, error) {
	spec, ok := specFor(hook)
	if !ok {
		return "", fmt.Errorf("githook: unknown hook %q", hook)
	}
	bin, prog := "entire", "entire"
	if localDev {
		bin, prog = "go", "go run ./cmd/entire/main.go"
	}
	call := prog + " hooks git " + hook
	if spec.args != "" {
		call += " " + spec.args
	}
	switch hook {
	case PrePush:
		return prePushScript(bin, VerdictEnv+`="$verdict" `+call, spec.comment, chain), nil
	case PostRewrite:
		return postRewriteScript(bin, call, spec.comment, chain), nil
	}
	call += " " + spec.suffix

	var b strings.Builder
	writeHeader(&b, spec.comment)
	writeCall(&b, bin, hook, "  "+call+"\n")
	if chain {
		writeChain(&b, hook, "  exec %s \"$@\"\n")
	}
	b.WriteString("exit 0\n")
	return b.String(), nil
}

// writeHeader writes a shim's first lines: the interpreter, Marker (how
// entire recognises its own hooks) and the hook's comment.
func writeHeader(b *strings.Builder, comment string) {
	b.WriteString("#!/bin/sh\n")
	b.WriteString(Marker + "\n")
	b.WriteString(comment + "\n")
}

// writeCall writes the block that runs body when bin is on PATH, and
// otherwise warns on stderr and goes on.
func writeCall(b *strings.Builder, bin, hook, body string) {
	fmt.Fprintf(b, "if command -v %s >/dev/null 2>&1; then\n", bin)
	b.WriteString(body)
	b.WriteString("else\n")
	fmt.Fprintf(b, "  echo \"[entire] '%s' not found on PATH; skipping the %s hook\" >&2\n", bin, hook)
	b.WriteString("fi\n")
}

// writeChain writes the block that runs the pre-existing hook
// (<hook>.pre-entire) when it is executable; run is a format with one %s,
// the hook's quoted path, and holds how it is run and what follows.
func writeChain(b *strings.Builder, hook, run string) {
	prev := `"$(dirname "$0")/` + hook + BackupSuffix + `"`
	b.WriteString("# Chain: run pre-existing hook\n")
	fmt.Fprintf(b, "if [ -x %s ]; then\n", prev)
	fmt.Fprintf(b, run, prev)
	b.WriteString("fi\n")
}

// prePushScript is the pre-push shim: git's list of pushed refs (stdin) is
// kept in a temporary file so that both entire and a chained hook read it;
// only entire's explicit refusal (PushRefusal written to the verdict file,
// and exit status 3) blocks the push, any other failure lets it go on.
func prePushScript(bin, call, comment string, chain bool) string {
	var b strings.Builder
	writeHeader(&b, comment)
	b.WriteString("refs=$(mktemp \"${TMPDIR:-/tmp}/entire-pre-push.XXXXXX\") || refs=\"\"\n")
	b.WriteString("if [ -n \"$refs\" ]; then cat >\"$refs\"; else refs=/dev/null; fi\n")
	b.WriteString("verdict=$(mktemp \"${TMPDIR:-/tmp}/entire-pre-push-verdict.XXXXXX\") || verdict=\"\"\n")
	b.WriteString("cleanup() { [ \"$refs\" = /dev/null ] || rm -f \"$refs\"; [ -z \"$verdict\" ] || rm -f \"$verdict\"; }\n")
	writeCall(&b, bin, PrePush, fmt.Sprintf("  %s <\"$refs\"\n", call)+
		fmt.Sprintf("  if [ $? -eq %d ] && [ -n \"$verdict\" ] && [ \"$(cat \"$verdict\")\" = \"%s\" ]; then cleanup; exit 1; fi\n", PushRefusedStatus, PushRefusal))
	if chain {
		writeChain(&b, PrePush, "  %s \"$@\" <\"$refs\"\n  status=$?\n  cleanup\n  exit $status\n")
	}
	b.WriteString("cleanup\nexit 0\n")
	return b.String()
}

// postRewriteScript is the post-rewrite shim: git's list of rewritten
// commits (stdin) is kept in a temporary file so that both entire and a
// chained hook read it. Entire's messages go to stderr: a commit it
// rewrites gets a new hash, which the user should hear about. Git ignores
// the hook's status.
func postRewriteScript(bin, call, comment string, chain bool) string {
	var b strings.Builder
	writeHeader(&b, comment)
	b.WriteString("rewritten=$(mktemp \"${TMPDIR:-/tmp}/entire-post-rewrite.XXXXXX\") || rewritten=\"\"\n")
	b.WriteString("if [ -n \"$rewritten\" ]; then cat >\"$rewritten\"; else rewritten=/dev/null; fi\n")
	b.WriteString("cleanup() { [ \"$rewritten\" = /dev/null ] || rm -f \"$rewritten\"; }\n")
	writeCall(&b, bin, PostRewrite, fmt.Sprintf("  %s <\"$rewritten\" || true\n", call))
	if chain {
		writeChain(&b, PostRewrite, "  %s \"$@\" <\"$rewritten\"\n  status=$?\n  cleanup\n  exit $status\n")
	}
	b.WriteString("cleanup\nexit 0\n")
	return b.String()
}
