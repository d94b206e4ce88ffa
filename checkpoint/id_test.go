package checkpoint

import (
	"errors"
	"testing"
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
