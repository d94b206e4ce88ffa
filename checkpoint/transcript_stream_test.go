package checkpoint

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/testtier"

	"github.com/entirecli/entire/agent"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// appendInPieces stores lines after prev through a JSONLAppender, cutting
// them at the line boundaries cuts picks.
func appendInPieces(t *testing.T, repo *gitrepo.Repo, prev *TranscriptState, lines []byte, rng *rand.Rand) *TranscriptState {
	t.Helper()
	a, err := NewJSONLAppender(repo, prev)
	if err != nil {
		t.Fatal(err)
	}
	for len(lines) > 0 {
		cut := len(lines)
		if rng.IntN(3) > 0 {
			at := rng.IntN(len(lines))
			if i := bytes.IndexByte(lines[at:], '\n'); i >= 0 {
				cut = at + i + 1
			}
		}
		if err := a.Write(lines[:cut]); err != nil {
			t.Fatal(err)
		}
		lines = lines[cut:]
	}
	ts, err := a.Close()
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// requireSameStore stores the turns one after the other with appendWhole
// (the whole-buffer reference: the whole new part at once, packed by
// agent.PackJSONL) and with a JSONLAppender fed in pieces, and
// fails unless every state, chunk blob included, is the same.
func requireSameStore(t *testing.T, repo *gitrepo.Repo, turns [][]byte, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var whole, piece *TranscriptState
	for i, lines := range turns {
		var err error
		if whole, err = appendWhole(repo, whole, lines); err != nil {
			t.Fatal(err)
		}
		piece = appendInPieces(t, repo, piece, lines, rng)
		if !reflect.DeepEqual(whole, piece) {
			t.Fatalf("turn %d (%d bytes): streamed store differs:\nwhole  %+v\npieces %+v", i, len(lines), whole, piece)
		}
	}
}

// The streamed store gives the chunks of the whole-buffer store, byte for
// byte, on the recorded transcripts of the fixtures, stored in one turn
// and turn by turn.
func TestJSONLAppenderMatchesAppendJSONLOnFixtures(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	files, _ := filepath.Glob("/work/shared/fixtures/transcripts/*/*.jsonl")
	if len(files) == 0 {
		t.Skip("no fixture transcripts")
	}
	for n, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = data[:bytes.LastIndexByte(data, '\n')+1]
		requireSameStore(t, repo, [][]byte{data}, uint64(n))
		var turns [][]byte
		for rest := data; len(rest) > 0; {
			cut := min(len(rest), 1+len(rest)/3)
			if i := bytes.IndexByte(rest[cut-1:], '\n'); i >= 0 {
				cut += i
			} else {
				cut = len(rest)
			}
			turns = append(turns, rest[:cut])
			rest = rest[cut:]
		}
		requireSameStore(t, repo, turns, uint64(n))
	}
}

// Synthetic transcripts at the packing's edges: content of exactly the
// chunk size and one byte either side, empty lines (last included), lines
// longer than a chunk, a small last chunk merged with the next turn.
func TestJSONLAppenderMatchesAppendJSONLAtEdges(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	line := func(n int) []byte {
		if n == 0 {
			return []byte{'\n'}
		}
		return []byte(`"` + strings.Repeat("a", n-2) + `"` + "\n")
	}
	cat := func(ls ...[]byte) []byte { return bytes.Join(ls, nil) }
	const c = agent.StoreChunkSize
	cases := map[string][][]byte{
		"empty":               {nil, line(0), nil},
		"one empty line":      {line(0)},
		"chunk size":          {cat(line(c-10), line(9))},
		"chunk size +1":       {cat(line(c-10), line(10))},
		"chunk size +2":       {cat(line(c-10), line(11))},
		"chunk size -1":       {cat(line(c-10), line(8))},
		"long then empty":     {cat(line(c+5), line(0))},
		"long empty empty":    {cat(line(10), line(c+5), line(0), line(0))},
		"full then empty":     {cat(line(c-1), line(0))},
		"full+ then empty":    {cat(line(100), line(c-101), line(0), line(0))},
		"empties between":     {cat(line(c/2), line(0), line(0), line(c/2), line(0), line(7))},
		"small then grows":    {line(100), line(200), cat(line(c), line(50)), line(0), line(3)},
		"merge empty chunk":   {cat(line(c+5), line(0)), nil, line(20)},
		"several turns":       {cat(line(c/3), line(c/3)), cat(line(c/3), line(c/3)), line(c * 2), line(10)},
		"exact after merge":   {line(1000), cat(line(c-1000-10), line(9))},
		"exact+1 after merge": {line(1000), cat(line(c-1000-10), line(10))},
	}
	seed := uint64(0)
	for name, turns := range cases {
		t.Run(name, func(t *testing.T) {
			seed++
			requireSameStore(t, repo, turns, seed)
		})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range testtier.Count(3, 20) {
		var turns [][]byte
		for range 1 + rng.IntN(4) {
			var b []byte
			for range rng.IntN(40) {
				n := rng.IntN(4)
				switch n {
				case 0:
					b = append(b, line(0)...)
				case 1:
					b = append(b, line(2+rng.IntN(c/4))...)
				default:
					b = append(b, line(2+rng.IntN(c+c/2))...)
				}
			}
			turns = append(turns, b)
		}
		requireSameStore(t, repo, turns, uint64(100+i))
	}
}
