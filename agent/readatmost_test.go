package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// ReadAtMost gives input of up to limit bytes whole, says "too large" for
// longer input after reading only limit+1 bytes of it, and passes read
// errors on.
func TestReadAtMost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		tooLarge bool
	}{{"", false}, {"abcd", false}, {"abcde", true}, {strings.Repeat("x", 1000), true}} {
		cr := &countingReader{r: strings.NewReader(tc.in)}
		data, tooLarge, err := ReadAtMost(cr, 4)
		if err != nil || tooLarge != tc.tooLarge {
			t.Errorf("ReadAtMost(%d bytes, 4) = tooLarge %v, %v", len(tc.in), tooLarge, err)
		}
		if want := tc.in; tc.tooLarge {
			if data != nil || cr.n != 5 {
				t.Errorf("ReadAtMost(%d bytes, 4): %d bytes back, %d read; want none back, 5 read", len(tc.in), len(data), cr.n)
			}
		} else if !bytes.Equal(data, []byte(want)) {
			t.Errorf("ReadAtMost(%q, 4) = %q", tc.in, data)
		}
	}
	boom := errors.New("boom")
	data, tooLarge, err := ReadAtMost(io.MultiReader(strings.NewReader("abcdefgh"), iotest.ErrReader(boom)), 100)
	if !errors.Is(err, boom) || tooLarge || data != nil {
		t.Errorf("ReadAtMost of a failing reader = %q, %v, %v", data, tooLarge, err)
	}
}

// fullFile is a spool file that takes room bytes and then fails as a full
// disk does.
type fullFile struct {
	b    []byte
	room int
}

func (f *fullFile) Write(p []byte) (int, error) {
	n := min(len(p), f.room-len(f.b))
	f.b = append(f.b, p[:n]...)
	if n < len(p) {
		return n, errors.New("no space left on device")
	}
	return n, nil
}

func (f *fullFile) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p, f.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// A temporary file that fills up loses nothing: the input comes back
// whole, read in memory from where the file stopped.
func TestSpoolOnAFullDisk(t *testing.T) {
	t.Parallel()
	in := []byte(strings.Repeat("0123456789abcdef", 3<<16)) // 3 MiB
	for _, room := range []int{0, spoolAbove, spoolAbove + 100, len(in) - 1} {
		data, ok, err := spool(&fullFile{room: room}, in[:spoolAbove], bytes.NewReader(in[spoolAbove:]))
		switch {
		case err != nil:
			t.Errorf("room %d: %v", room, err)
		case room < spoolAbove && ok:
			t.Errorf("room %d: spooled without room for the head", room)
		case room >= spoolAbove && !bytes.Equal(data, in):
			t.Errorf("room %d: %d bytes back, want the %d of the input", room, len(data), len(in))
		}
	}
}

// Input over the spool size comes back whole, from a pipe and from a
// regular file, and leaves no temporary file behind.
func TestReadAtMostLargeInput(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	in := strings.Repeat("0123456789abcdef", 3<<16) // 3 MiB
	path := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, r := range map[string]io.Reader{"pipe": iotest.HalfReader(strings.NewReader(in)), "file": f} {
		data, tooLarge, err := ReadAtMost(r, int64(len(in)))
		if err != nil || tooLarge || string(data) != in {
			t.Errorf("%s: %d bytes back, tooLarge %v, %v", name, len(data), tooLarge, err)
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if data, tooLarge, err := ReadAtMost(f, int64(len(in)-1)); err != nil || !tooLarge || data != nil {
		t.Errorf("file one byte over the limit: %d bytes back, tooLarge %v, %v", len(data), tooLarge, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// A hook's payload from a pipe, over the size from which it is read into
// memory of its own: whole up to the limit, "too large" past it, and a
// read error as it is.
func TestReadHookPayloadFromAPipe(t *testing.T) {
	t.Parallel()
	payload := bytes.Repeat([]byte(`{"k":"0123456789abcdef"}`), (3*spoolAbove)/24+7)
	for _, tc := range []struct {
		limit    int64
		tooLarge bool
	}{
		{int64(len(payload)), false},
		{int64(len(payload)) + 1<<20, false},
		{int64(len(payload)) - 1, true},
		{spoolAbove + 10, true},
	} {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			pw.Write(payload)
			pw.Close()
		}()
		data, tooLarge, err := readHookPayload(pr, tc.limit)
		pr.Close()
		if err != nil || tooLarge != tc.tooLarge {
			t.Fatalf("limit %d: tooLarge %v, %v", tc.limit, tooLarge, err)
		}
		if !tooLarge && !bytes.Equal(data, payload) {
			t.Errorf("limit %d: %d bytes back, want %d", tc.limit, len(data), len(payload))
		}
	}
	boom := errors.New("boom")
	_, _, err := readHookPayload(io.MultiReader(bytes.NewReader(payload[:spoolAbove+5]), iotest.ErrReader(boom)), int64(len(payload)))
	if !errors.Is(err, boom) {
		t.Errorf("a failing reader: %v", err)
	}
}
