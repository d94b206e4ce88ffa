package checkpoint

import (
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestID(t *testing.T) {
	t.Parallel()
	seen := map[ID]bool{}
	for i := 0; i < 1000; i++ {
		id := NewID()
		if !id.Valid() {
			t.Fatalf("NewID() = %q is not valid", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
		back, err := ParseID(id.String())
		if err != nil || back != id {
			t.Fatalf("round trip %q: %q, %v", id, back, err)
		}
	}
	if got := ID("a3b2c4d5e6f7").Shard(); got != "a3/b2c4d5e6f7" {
		t.Errorf("Shard = %q", got)
	}
	for _, bad := range []string{"", "a3b2c4d5e6f", "a3b2c4d5e6f70", "A3B2C4D5E6F7", "g3b2c4d5e6f7", "a3b2c4d5e6f7\n", "../../etc/pw"} {
		if _, err := ParseID(bad); !errors.Is(err, ErrInvalidID) {
			t.Errorf("ParseID(%q) = %v, want ErrInvalidID", bad, err)
		}
	}
}

// TestULIDs: today's Entire's IDs (SPEC 10.2) are checkpoint IDs, named
// by their ref in the git-refs layout (SPEC 10.3), shard the last two.
func TestULIDs(t *testing.T) {
	t.Parallel()
	for s, ok := range map[string]bool{
		"01K9TQ8ZP7X3F5M2WVJ4CNRB6D": true,
		"7ZZZZZZZZZZZZZZZZZZZZZZZZZ": true,
		"81K9TQ8ZP7X3F5M2WVJ4CNRB6D": false, // past the 48-bit time
		"01k9tq8zp7x3f5m2wvj4cnrb6d": false, // lower case
		"01K9TQ8ZP7X3F5M2WVJ4CNRB6I": false, // I is not Crockford
		"01K9TQ8ZP7X3F5M2WVJ4CNRB6":  false,
		"a3b2c4d5e6f7":               true,
	} {
		if got := ID(s).Valid(); got != ok {
			t.Errorf("Valid(%q) = %v, want %v", s, got, ok)
		}
	}
	id := ID("01K9TQ8ZP7X3F5M2WVJ4CNRB6D")
	if !id.IsULID() || ID("a3b2c4d5e6f7").IsULID() {
		t.Error("IsULID")
	}
	if got := id.RefName(); got != "refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D" {
		t.Errorf("RefName = %s", got)
	}
	if got, ok := IDOfRef(id.RefName()); !ok || got != id {
		t.Errorf("IDOfRef = %q, %v", got, ok)
	}
	for _, bad := range []string{"refs/entire/checkpoints/01/01K9TQ8ZP7X3F5M2WVJ4CNRB6D", "refs/entire/checkpoints/6D/x", "refs/entire/undo/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D", "refs/entire/checkpoints/6D"} {
		if _, ok := IDOfRef(plumbing.ReferenceName(bad)); ok {
			t.Errorf("IDOfRef(%q) accepted", bad)
		}
	}
	if NormalizeID(" 01k9tq8zp7x3f5m2wvj4cnrb6d ") != string(id) || NormalizeID("A3B2C4D5E6F7") != "a3b2c4d5e6f7" {
		t.Error("NormalizeID")
	}
}

// IDOfRef accepts exactly the refs RefName makes.
func FuzzIDOfRef(f *testing.F) {
	f.Add("refs/entire/checkpoints/6D/01K9TQ8ZP7X3F5M2WVJ4CNRB6D")
	f.Add("refs/entire/checkpoints/f7/a3b2c4d5e6f7")
	f.Add("refs/entire/checkpoints/01/01K9TQ8ZP7X3F5M2WVJ4CNRB6D")
	f.Add("refs/entire/checkpoints/")
	f.Fuzz(func(t *testing.T, name string) {
		id, ok := IDOfRef(plumbing.ReferenceName(name))
		if !ok {
			return
		}
		if !id.Valid() || string(id.RefName()) != name {
			t.Fatalf("IDOfRef(%q) = %q, whose ref is %q", name, id, id.RefName())
		}
	})
}
