package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// BatchObject is one answer of `git cat-file --batch`.
type BatchObject struct {
	// Name is the object name that was asked for.
	Name string
	// Hash is the object's hash, and Type its type ("blob", "tree",
	// "commit" or "tag"); both are empty when the object is missing.
	Hash, Type string
	// Size is the object's size in bytes.
	Size int64
	// Body reads the object's content, Size bytes.
	Body io.Reader
}

// Missing reports that git has no object of that name.
func (o *BatchObject) Missing() bool { return o.Type == "" }

// ReadBatch reads the objects names through one `git cat-file --batch`,
// all asked for at once so that git streams them, and calls fn with each
// answer in order, missing objects included. fn may read obj.Body, all of
// it or not (what it leaves is skipped), but not after it returns; an
// error from fn stops the read, kills git and is returned. The run is
// bounded by ctx, and by Timeout only when it is set: its length grows
// with the objects read and fn's work.
func (g Runner) ReadBatch(parent context.Context, names []string, fn func(obj *BatchObject) error) (err error) {
	if len(names) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, n := range names {
		in.WriteString(n + "\n")
	}
	ctx, cancel := g.bound(parent, -1)
	defer cancel()
	args := []string{"cat-file", "--batch"}
	cmd := g.command(ctx, args)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	defer func() {
		if err != nil {
			cancel()
			_ = cmd.Wait()
		}
	}()
	rd := newBatchReader(stdout)
	for _, n := range names {
		obj, err := rd.next(n)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return g.result(parent, ctx, cmd, args, cerr, "")
			}
			return fmt.Errorf("git cat-file: %w", err)
		}
		if err := fn(obj); err != nil {
			return err
		}
		if err := rd.finish(obj); err != nil {
			return fmt.Errorf("git cat-file: %w", err)
		}
	}
	return g.result(parent, ctx, cmd, args, cmd.Wait(), stderr.String())
}

// batchReader parses the output of `git cat-file --batch`: per object a
// header "<hash> <type> <size>" (or "<name> missing"), the content, and a
// newline.
type batchReader struct {
	rd   *bufio.Reader
	body io.LimitedReader
}

func newBatchReader(r io.Reader) *batchReader {
	return &batchReader{rd: bufio.NewReaderSize(r, 1<<20)}
}

// next reads the header of the answer for name.
func (b *batchReader) next(name string) (*BatchObject, error) {
	header, err := b.rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	obj := &BatchObject{Name: name, Body: bytes.NewReader(nil)}
	fields := strings.Fields(header)
	if len(fields) != 3 {
		return obj, nil // "<name> missing", or "ambiguous": no content follows
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return nil, fmt.Errorf("bad header %q", strings.TrimSpace(header))
	}
	obj.Hash, obj.Type, obj.Size = fields[0], fields[1], size
	b.body = io.LimitedReader{R: b.rd, N: size}
	obj.Body = &b.body
	return obj, nil
}

// finish skips what the caller left of obj's content, and the newline
// after it.
func (b *batchReader) finish(obj *BatchObject) error {
	if obj.Missing() {
		return nil
	}
	if _, err := io.Copy(io.Discard, &b.body); err != nil {
		return err
	}
	if b.body.N > 0 {
		return fmt.Errorf("object %s: %w", obj.Hash, io.ErrUnexpectedEOF)
	}
	if c, err := b.rd.ReadByte(); err != nil || c != '\n' {
		return fmt.Errorf("object %s: no newline after the content (%v)", obj.Hash, err)
	}
	return nil
}
