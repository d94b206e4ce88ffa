package checkpoint

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readAllWindows reads what a SourceReader with the given window size
// gives after st.
func readAllWindows(t *testing.T, path string, st *TranscriptState, window int) (data []byte, end int64, restart bool) {
	t.Helper()
	r, err := OpenSource(path, st)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.window = window
	for {
		w, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(w) == 0 || w[len(w)-1] != '\n' || (len(w) > window && bytes.Count(w, []byte{'\n'}) != 1) {
			t.Fatalf("window of %d bytes is not complete lines within the window", len(w))
		}
		data = append(data, w...)
	}
	return data, r.End(), r.Restart()
}

// Windows put together are what ReadSource returns, whatever the window
// size: complete lines only, a partial last line left, long lines whole,
// and a rewritten source read again from the start.
func TestSourceReaderMatchesReadSource(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	path := filepath.Join(t.TempDir(), "t.jsonl")
	var content []byte
	var st *TranscriptState
	for turn := range 8 {
		for range rng.IntN(50) {
			n := rng.IntN(300)
			if rng.IntN(10) == 0 {
				n = rng.IntN(5000)
			}
			content = append(content, strings.Repeat("x", n)+"\n"...)
		}
		file := append([]byte(nil), content...)
		if turn%2 == 1 {
			file = append(file, `{"partial`...)
		}
		if turn == 5 {
			content = content[:len(content)/2]
			content = content[:bytes.LastIndexByte(content, '\n')+1]
			file = append(append([]byte(nil), content...), 'y')
		}
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		want, wantEnd, wantRestart, err := ReadSource(path, st)
		if err != nil {
			t.Fatal(err)
		}
		for _, window := range []int{1, 7, 256, 4096, SourceWindow} {
			got, end, restart := readAllWindows(t, path, st, window)
			if !bytes.Equal(got, want) || end != wantEnd || restart != wantRestart {
				t.Fatalf("turn %d window %d: got %d bytes to %d (restart %v), ReadSource %d bytes to %d (restart %v)", turn, window, len(got), end, restart, len(want), wantEnd, wantRestart)
			}
		}
		st = &TranscriptState{}
		if err := st.SetSource(path, wantEnd); err != nil {
			t.Fatal(err)
		}
	}
}
