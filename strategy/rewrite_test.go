package strategy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestParseRewrites(t *testing.T) {
	t.Parallel()
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	in := a + " " + c + "\n" + b + " " + c + " extra\nnot a line\n" + a + "\n\n" + c + " xyz\n"
	got := ParseRewrites(strings.NewReader(in))
	want := []Rewrite{
		{Old: plumbing.NewHash(a), New: plumbing.NewHash(c)},
		{Old: plumbing.NewHash(b), New: plumbing.NewHash(c)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseRewrites = %v, want %v", got, want)
	}
}
