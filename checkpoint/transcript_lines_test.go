package checkpoint

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// ForEachLine gives, chunk by chunk, the lines ReadTranscript gives whole.
func TestForEachLineMatchesReadTranscript(t *testing.T) {
	t.Parallel()
	repo := openRepo(t, gittest.InitWithCommit(t))
	var src bytes.Buffer
	for i := 0; src.Len() < 9<<20; i++ {
		fmt.Fprintf(&src, `{"type":"user","uuid":"u%d","message":{"content":"line %d %s"}}`+"\n", i, i, bytes.Repeat([]byte("x"), i%5000))
	}
	ts, err := AppendJSONL(repo, nil, src.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Chunks) < 3 {
		t.Fatalf("%d chunks", len(ts.Chunks))
	}
	whole, err := ReadTranscript(repo, ts.Stored(), "")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	jsonl, err := ForEachLine(repo, ts.Stored(), func(line []byte) error {
		got.Write(line)
		got.WriteByte('\n')
		return nil
	})
	if err != nil || !jsonl {
		t.Fatalf("ForEachLine: %v %v", jsonl, err)
	}
	if !bytes.Equal(got.Bytes(), whole) {
		t.Errorf("ForEachLine gave %d bytes, ReadTranscript %d", got.Len(), len(whole))
	}
	// An error of the callback stops the walk.
	stop := fmt.Errorf("stop")
	n := 0
	if _, err := ForEachLine(repo, ts.Stored(), func([]byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("stopped walk: %v after %d lines", err, n)
	}
}
