package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestRunnerEnviron(t *testing.T) {
	t.Parallel()
	g := Runner{
		Env:     []string{"GIT_DIR=.git", "GIT_PREFIX=sub/", "KEEP=1"},
		Unset:   []string{"GIT_PREFIX"},
		Set:     []string{"GIT_DIR=/abs/.git"},
		CLocale: true,
	}
	got := g.environ()
	want := []string{"GIT_DIR=.git", "KEEP=1", "LC_ALL=C", "GIT_DIR=/abs/.git"}
	if !slices.Equal(got, want) {
		t.Errorf("environ() = %q, want %q (an explicit Env is used as given)", got, want)
	}

	wd, _ := os.Getwd()
	env := absPathVars([]string{"GIT_INDEX_FILE=.git/index.tmp", "GIT_WORK_TREE=/abs", "OTHER=rel"})
	want = []string{"GIT_INDEX_FILE=" + filepath.Join(wd, ".git/index.tmp"), "GIT_WORK_TREE=/abs", "OTHER=rel"}
	if !slices.Equal(env, want) {
		t.Errorf("absPathVars = %q, want %q", env, want)
	}
}

func TestRunnerRunErrors(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	g := Runner{Dir: dir}
	ctx := context.Background()

	out, err := g.Run(ctx, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil || strings.TrimSpace(string(out)) != "main" {
		t.Fatalf("rev-parse: %q, %v", out, err)
	}
	out, err = g.RunInput(ctx, []byte("README.md\n"), "check-ignore", "--stdin")
	var ge *GitError
	if !errors.As(err, &ge) || ge.ExitCode != 1 || len(out) != 0 {
		t.Errorf("check-ignore of a tracked file: %q, %v; want a *GitError with exit code 1", out, err)
	}
	_, err = g.Run(ctx, "cat-file", "-p", "0000000000000000000000000000000000000001")
	if !errors.As(err, &ge) || ge.ExitCode != 128 || !strings.Contains(err.Error(), "git cat-file -p 0000000000000000000000000000000000000001: fatal:") {
		t.Errorf("cat-file of a missing object: %v", err)
	}
	_, err = Runner{Dir: dir, ShortErrors: true}.Run(ctx, "-c", "a.b=c", "cat-file", "-p", "0000000000000000000000000000000000000001")
	if !errors.As(err, &ge) || !strings.HasPrefix(err.Error(), "git cat-file: fatal:") {
		t.Errorf("short error: %v", err)
	}

	// The runner's timeout and the caller's cancellation are told apart.
	hang := []string{"-c", "alias.hang=!sleep 3", "hang"}
	start := time.Now()
	_, err = Runner{Dir: dir, Timeout: 100 * time.Millisecond}.Run(ctx, hang...)
	if !errors.Is(err, ErrTimeout) || time.Since(start) > 10*time.Second {
		t.Errorf("timed out command: %v after %s", err, time.Since(start))
	}
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = Runner{Dir: dir}.Run(cctx, hang...)
	if errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("command of a cancelled context: %v", err)
	}
}

func TestReadBatch(t *testing.T) {
	t.Parallel()
	dir := gittest.InitWithCommit(t)
	r := openTest(t, dir)
	big := bytes.Repeat([]byte("0123456789"), 50000)
	small := []byte("small\n")
	hBig, err := r.WriteBlob(big)
	if err != nil {
		t.Fatal(err)
	}
	hSmall, err := r.WriteBlob(small)
	if err != nil {
		t.Fatal(err)
	}
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	missing := "0123456789012345678901234567890123456789"
	names := []string{hBig.String(), missing, head, hSmall.String(), hSmall.String()}

	var got []string
	err = r.Runner().ReadBatch(context.Background(), names, func(obj *BatchObject) error {
		switch {
		case obj.Missing():
			got = append(got, obj.Name+" missing")
		case obj.Name == hBig.String():
			// Read only a part: the rest is skipped.
			buf := make([]byte, 7)
			if _, err := io.ReadFull(obj.Body, buf); err != nil || string(buf) != "0123456" {
				t.Errorf("start of the big blob: %q, %v", buf, err)
			}
			got = append(got, obj.Type+" partial")
		default:
			b, err := io.ReadAll(obj.Body)
			if err != nil || int64(len(b)) != obj.Size || obj.Hash != obj.Name {
				t.Errorf("%s: %d of %d bytes, %v", obj.Name, len(b), obj.Size, err)
			}
			got = append(got, obj.Type+" "+string(b[:min(len(b), 5)]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"blob partial", missing + " missing", "commit tree ", "blob small", "blob small"}
	if !slices.Equal(got, want) {
		t.Errorf("answers %q, want %q", got, want)
	}

	// An error from fn stops the read and is returned.
	stop := errors.New("stop")
	calls := 0
	err = r.Runner().ReadBatch(context.Background(), names, func(*BatchObject) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("stopped read: %v after %d calls", err, calls)
	}
	if err := r.Runner().ReadBatch(context.Background(), nil, nil); err != nil {
		t.Errorf("empty read: %v", err)
	}
}
