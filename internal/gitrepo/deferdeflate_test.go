package gitrepo

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"
)

// Objects written while deflation is deferred are stored blocks that git
// reads back byte for byte, of sizes around the stored block's; the
// objects before the budget is spent are deflated at once; CompressLoose
// deflates the deferred ones in place, and git reads them the same.
func TestDeferredDeflation(t *testing.T) {
	t.Parallel()
	dir := gittest.Init(t)
	r := openTest(t, dir)
	r.DeferDeflation()
	line := "a line of tool output that repeats, as logs do\n"
	early := strings.Repeat(line, deferAbove/len(line)-1)
	hEarly, err := r.WriteBlobString(early)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Deferred()) != 0 {
		t.Fatalf("a small object within the budget was deferred: %v", r.Deferred())
	}
	var bodies []string
	for _, n := range []int{deflateFastAfter + 1, 0, 1, storedBlock - 12, storedBlock - 11, storedBlock, 3*storedBlock + 5} {
		bodies = append(bodies, strings.Repeat(line, n/len(line)+1)[:n])
	}
	var hashes []plumbing.Hash
	for _, b := range bodies {
		h, err := r.WriteBlobString(b)
		if err != nil {
			t.Fatal(err)
		}
		if want := HashObject(plumbing.BlobObject, []byte(b)); h != want {
			t.Fatalf("%d bytes: hash %s, want %s", len(b), h, want)
		}
		hashes = append(hashes, h)
	}
	deferred := r.Deferred()
	if len(deferred) != len(bodies) {
		t.Fatalf("%d objects deferred, want %d", len(deferred), len(bodies))
	}
	check := func(stage string) {
		t.Helper()
		for i, h := range hashes {
			out, err := gittest.GitErr(dir, "cat-file", "blob", h.String())
			if err != nil || out != strings.TrimSuffix(bodies[i], "\n") && out != bodies[i] {
				t.Fatalf("%s: git cat-file of %d bytes: %v (%d bytes back)", stage, len(bodies[i]), err, len(out))
			}
		}
		if out, err := gittest.GitErr(dir, "fsck", "--strict", "--no-dangling"); err != nil {
			t.Fatalf("%s: git fsck: %v\n%s", stage, err, out)
		}
	}
	check("stored")
	big := looseObjectPath(r.objectsDir(), hashes[0])
	before, _ := os.Stat(big)
	if before.Size() < deflateFastAfter {
		t.Errorf("the deferred object's file is %d bytes: deflated", before.Size())
	}
	if err := r.CompressLoose(append(deferred, hEarly)); err != nil {
		t.Fatal(err)
	}
	check("compressed")
	after, _ := os.Stat(big)
	if after.Size()*10 > before.Size() {
		t.Errorf("compressed: %d bytes, stored: %d", after.Size(), before.Size())
	}
	// A stored stream is a zlib stream any reader takes.
	var buf bytes.Buffer
	text := []string{"blob 3\x00", "abc"}
	if err := writeStoredStream(&buf, text, adler("blob 3\x00abc")); err != nil {
		t.Fatal(err)
	}
	zr, err := zlib.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || string(got) != "blob 3\x00abc" {
		t.Errorf("stored stream reads back %q, %v", got, err)
	}
	// An object gone from the loose store is skipped.
	if err := r.CompressLoose([]plumbing.Hash{plumbing.NewHash("0123456789012345678901234567890123456789")}); err != nil {
		t.Errorf("a missing object: %v", err)
	}
}

func adler(s string) uint32 {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	b := buf.Bytes()
	return uint32(b[len(b)-4])<<24 | uint32(b[len(b)-3])<<16 | uint32(b[len(b)-2])<<8 | uint32(b[len(b)-1])
}
