package rewind

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"sort"
)

// span is a byte range: of an undo point's data, or of the base a delta
// copies from.
type span struct {
	Off int64 `json:"off"`
	Len int64 `json:"len"`
}

func (s span) end() int64 { return s.Off + s.Len }

// deltaOp is one step of rebuilding a file from a base: copy a range of
// the base, or append bytes saved in the undo point's data.
type deltaOp struct {
	Copy *span `json:"copy,omitempty"`
	Data *span `json:"data,omitempty"`
}

// dataBuilder collects the bytes an undo point saves, handing out their
// spans.
type dataBuilder struct{ buf []byte }

func (b *dataBuilder) add(p []byte) *span {
	s := &span{Off: int64(len(b.buf)), Len: int64(len(p))}
	b.buf = append(b.buf, p...)
	return s
}

// lineDelta returns the ops that rebuild cur from base, saving with b only
// the lines of cur that base does not have. Lines are matched whole: in
// order while the two agree (a transcript cut by a rewind is base followed
// by the cut tail, whose delta is one copy and one data op), else by
// looking the line up among base's later lines (a line base lacks, such as
// one whose secret base has redacted, is saved and the walk goes on).
// Adjacent copies and adjacent data are merged.
func lineDelta(base, cur []byte, b *dataBuilder) []deltaOp {
	baseLines := splitLines(base)
	seed := maphash.MakeSeed()
	at := map[uint64][]int{} // line hash -> indexes into baseLines, ascending
	for i, l := range baseLines {
		h := maphash.Bytes(seed, base[l.Off:l.end()])
		at[h] = append(at[h], i)
	}
	var ops []deltaOp
	var pending *span // cur bytes not yet saved
	flush := func() {
		if pending != nil {
			ops = append(ops, deltaOp{Data: b.add(cur[pending.Off:pending.end()])})
			pending = nil
		}
	}
	next := 0 // the base line expected next
	for _, l := range splitLines(cur) {
		line := cur[l.Off:l.end()]
		match := -1
		if next < len(baseLines) && bytes.Equal(line, base[baseLines[next].Off:baseLines[next].end()]) {
			match = next
		} else {
			cands := at[maphash.Bytes(seed, line)]
			for k := sort.SearchInts(cands, next); k < len(cands); k++ {
				if c := baseLines[cands[k]]; bytes.Equal(line, base[c.Off:c.end()]) {
					match = cands[k]
					break
				}
			}
		}
		if match < 0 {
			if pending == nil {
				pending = &span{Off: l.Off}
			}
			pending.Len = l.end() - pending.Off
			continue
		}
		flush()
		bl := baseLines[match]
		if n := len(ops); n > 0 && ops[n-1].Copy != nil && ops[n-1].Copy.end() == bl.Off {
			ops[n-1].Copy.Len += bl.Len
		} else {
			ops = append(ops, deltaOp{Copy: &span{Off: bl.Off, Len: bl.Len}})
		}
		next = match + 1
	}
	flush()
	return ops
}

// splitLines returns the lines of b, each with its newline (the last one
// may lack it).
func splitLines(b []byte) []span {
	var out []span
	for off := 0; off < len(b); {
		n := bytes.IndexByte(b[off:], '\n') + 1
		if n == 0 {
			n = len(b) - off
		}
		out = append(out, span{Off: int64(off), Len: int64(n)})
		off += n
	}
	return out
}

// applyDelta rebuilds a file of size bytes from base, the ops and the undo
// point's data; any op out of range, or a result of another size, is an
// error.
func applyDelta(base, data []byte, ops []deltaOp, size int64) ([]byte, error) {
	out := make([]byte, 0, size)
	for _, op := range ops {
		var src []byte
		var s *span
		switch {
		case op.Copy != nil && op.Data == nil:
			src, s = base, op.Copy
		case op.Data != nil && op.Copy == nil:
			src, s = data, op.Data
		default:
			return nil, fmt.Errorf("malformed delta op")
		}
		if s.Off < 0 || s.Len < 0 || s.end() > int64(len(src)) || int64(len(out))+s.Len > size {
			return nil, fmt.Errorf("delta op %+v out of range", *s)
		}
		out = append(out, src[s.Off:s.end()]...)
	}
	if int64(len(out)) != size {
		return nil, fmt.Errorf("delta rebuilds %d bytes, want %d", len(out), size)
	}
	return out, nil
}
