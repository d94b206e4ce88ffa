package redact

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// refUnits maps every decoded byte of raw to the raw offset of its unit and
// whether it starts the unit, the slow way, for checking rawSpan.
func refUnits(raw []byte) (off []int, start []bool) {
	for j := 0; j < len(raw); {
		n := 1
		if raw[j] == '\\' && j+1 < len(raw) {
			n = 2
			if raw[j+1] == 'u' {
				if _, ok := hex4(raw, j+2); ok {
					n = 6
					if j+12 <= len(raw) {
						if s, _ := unescapeJSON(raw[j : j+12]); utf8.RuneCountInString(s) == 1 && s != "\uFFFD" {
							n = 12
						}
					}
				}
			}
		}
		dec, _ := unescapeJSON(raw[j : j+n])
		for k := range len(dec) {
			off = append(off, j)
			start = append(start, k == 0)
		}
		j += n
	}
	return append(off, len(raw)), append(start, true)
}

func TestRawSpanCoversWholeUnits(t *testing.T) {
	t.Parallel()
	raws := []string{
		`plain text`, `a\nb\tc\"d\\e\/f`, `caf\u00e9 x \ud83d\ude00 y \ud800 z`, `bad \q escape`, `end\`,
		`\u00e9\u00e9\n\n`, `x\u20ACy`,
	}
	for _, rs := range raws {
		raw := []byte(rs)
		dec, units := unescapeJSON(raw)
		off, start := refUnits(raw)
		if len(off) != len(dec)+1 {
			t.Fatalf("%s: reference has %d offsets for %d bytes", rs, len(off), len(dec))
		}
		for s := 0; s <= len(dec); s++ {
			for e := s; e <= len(dec); e++ {
				ws, we := s, e
				for ws > 0 && !start[ws] {
					ws--
				}
				for we < len(dec) && !start[we] {
					we++
				}
				gs, ge := rawSpan(units, s, e)
				if gs != off[ws] || ge != off[we] {
					t.Fatalf("%s: span [%d,%d) maps to [%d,%d), want [%d,%d)", rs, s, e, gs, ge, off[ws], off[we])
				}
			}
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+rs+`"`), &want); err == nil && want != dec {
			t.Errorf("%s: decoded %q, encoding/json %q", rs, dec, want)
		}
	}
}
