package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/entirecli/entire/internal/iostreams"
	"github.com/entirecli/entire/internal/proc"
)

// ProtocolVersion is the protocol version Entire speaks.
const ProtocolVersion = 1

// Bounds of one call.
const (
	// InfoTimeout bounds info at discovery.
	InfoTimeout = 2 * time.Second
	// CallTimeout bounds every subcommand that answers with a small JSON
	// object (parse-hook, detect, the analyzers' answers).
	CallTimeout = 5 * time.Second
	// TranscriptTimeout bounds the subcommands that move a transcript
	// (read-transcript, chunk-transcript, reassemble-transcript,
	// write-session, calculate-tokens).
	TranscriptTimeout = 30 * time.Second
	// HookTranscriptTimeout bounds read-transcript in a hook, which the
	// agent waits for.
	HookTranscriptTimeout = 10 * time.Second
	// maxJSONAnswer bounds a JSON answer.
	maxJSONAnswer = 4 << 20
	// MaxTranscript bounds a transcript read back from a program (and
	// the base64 chunks of one, which are a third larger).
	MaxTranscript = 512 << 20
	// maxStderr is how much of a program's stderr an error keeps.
	maxStderr = 2048
)

// ErrProtocol is wrapped by every error of a call whose program failed,
// timed out or answered what the protocol does not allow.
var ErrProtocol = errors.New("external agent")

// Runner runs one program's subcommands. The zero value is not usable:
// Path and RepoRoot are required.
type Runner struct {
	// Path is the program's absolute path.
	Path string
	// RepoRoot is the repository root: the calls' working directory and
	// ENTIRE_REPO_ROOT.
	RepoRoot string
	// Environ returns the environment the program inherits (nil:
	// os.Environ).
	Environ func() []string
}

// call is one subcommand call.
type call struct {
	args    []string
	stdin   []byte
	timeout time.Duration
	limit   int64
}

// run runs c and returns its stdout. A non-zero exit, a timeout or more
// stdout than c.limit is an error wrapping ErrProtocol that names the
// program and subcommand, with the first line of stderr, escaped.
func (r Runner) run(ctx context.Context, c call) ([]byte, error) {
	name := r.label(c.args)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Path, c.args...)
	cmd.Dir = r.RepoRoot
	env := os.Environ()
	if r.Environ != nil {
		env = r.Environ()
	}
	cmd.Env = append(env, "ENTIRE_REPO_ROOT="+r.RepoRoot, fmt.Sprintf("ENTIRE_PROTOCOL_VERSION=%d", ProtocolVersion))
	// Its own process group, killed whole past the limit: a program's
	// children must not keep the pipes (and the hook) open.
	proc.Detach(cmd)
	cmd.WaitDelay = time.Second
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	out := &limitedBuffer{limit: c.limit}
	errOut := &limitedBuffer{limit: maxStderr}
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("%w: %s: no answer within %s", ErrProtocol, name, c.timeout)
	case out.over:
		return nil, fmt.Errorf("%w: %s: answer larger than %d bytes", ErrProtocol, name, c.limit)
	case err != nil:
		var exit *exec.ExitError
		detail := err.Error()
		if errors.As(err, &exit) {
			detail = exit.ProcessState.String()
		}
		if msg := firstLine(errOut.Bytes()); msg != "" {
			detail += ": " + msg
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrProtocol, name, detail)
	}
	return out.Bytes(), nil
}

// label names a call in errors: the program's base name and subcommand.
func (r Runner) label(args []string) string {
	base := r.Path[strings.LastIndexByte(r.Path, '/')+1:]
	if len(args) > 0 {
		return base + " " + args[0]
	}
	return base
}

// firstLine returns the first non-empty line of b, escaped for a
// terminal and cut to 300 bytes.
func firstLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			return iostreams.Escape(l)
		}
	}
	return ""
}

// limitedBuffer keeps at most limit bytes and notes that more came; it
// goes on accepting writes so that the program is not stopped by a
// broken pipe before its exit status is known.
// (No embedded bytes.Buffer: its ReadFrom would let io.Copy past Write.)
type limitedBuffer struct {
	buf   bytes.Buffer
	limit int64
	over  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - int64(b.buf.Len()); int64(len(p)) > room {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes returns what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }

var _ io.Writer = (*limitedBuffer)(nil)
