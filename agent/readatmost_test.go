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
