package agent

import (
	"bytes"
	"strings"
	"testing"
)

func TestPositionHolds(t *testing.T) {
	t.Parallel()
	content := []byte(`{"uuid":"a1"}` + "\n" + `{"uuid":"b2"}` + "\n" + `{"x":1}` + "\n")
	end := int64(len(content))
	long := []byte(`{"uuid":"z9","pad":"` + strings.Repeat("x", positionWindow) + `"}` + "\n")
	for _, tc := range []struct {
		name    string
		content []byte
		p       Position
		want    bool
	}{
		{"zero", content, Position{}, true},
		{"entries only", content, Position{Entries: 9}, true},
		{"end with its ID", content, Position{Entries: 3, Offset: end, LastID: "b2"}, true},
		{"end without ID", content, Position{Entries: 3, Offset: end}, true},
		{"past the end", content, Position{Offset: end + 1}, false},
		{"mid line", content, Position{Offset: 5}, false},
		{"another ID", content, Position{Entries: 3, Offset: end, LastID: "c3"}, false},
		{"in one long line", long, Position{Entries: 1, Offset: int64(len(long)), LastID: "gone"}, true},
	} {
		if got := PositionHolds(bytes.NewReader(tc.content), int64(len(tc.content)), tc.p); got != tc.want {
			t.Errorf("%s: PositionHolds(%+v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}
