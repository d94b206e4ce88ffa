package agent

import (
	"bytes"
	"errors"
	"io"
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
