package checkpoint

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// benchRepo builds (once per process and size) a repository of n files laid
// out like ../shared/bench's: src/<module>/<package>/<name>_<i>.go, 2,000
// files per module and 100 per package, in one packed commit with the files
// checked out.
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("entire-bench-repo-%d", n))
	if _, err := os.Stat(filepath.Join(dir, ".git", "entire-bench-ready")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	gittest.Git(b, dir, "init", "-q", "-b", "main")
	gittest.Git(b, dir, "config", "gc.auto", "0")
	cmd := exec.Command("git", "fast-import", "--quiet", "--done")
	cmd.Dir = dir
	cmd.Env = gittest.Env(b.TempDir())
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	paths := benchPaths(n)
	for i, p := range paths {
		data := fmt.Sprintf("// Package p%d is synthetic.\npackage p%d\n\nfunc F%d() int { return %d }\n", i, i, i, i*7)
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(data), data)
	}
	msg := "import\n"
	fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\nauthor B <b@e> 1700000000 +0000\ncommitter B <b@e> 1700000000 +0000\ndata %d\n%s", n+1, len(msg), msg)
	for i, p := range paths {
		fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, p)
	}
	w.WriteString("\ndone\n")
	w.Flush()
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	gittest.Git(b, dir, "reset", "-q")
	os.WriteFile(filepath.Join(dir, ".git", "entire-bench-ready"), nil, 0o644)
	return dir
}

func benchPaths(n int) []string {
	paths := make([]string, n)
	for i := range paths {
		mod, pkg := i/2000, (i/100)%20
		paths[i] = fmt.Sprintf("src/mod%02d/pkg%02d/file_%06d.go", mod, pkg, i)
	}
	return paths
}

// BenchmarkWriteStep writes one temporary checkpoint with 5 changed files
// (the changed paths given, the repository open, the file cache warm). Its
// cost must not depend on the size of the repository: it reports the median
// per write as median-ms.
func BenchmarkWriteStep(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := benchRepo(b, n)
			repo, err := gitrepo.Open(dir, gitrepo.Options{Getenv: func(string) string { return "" }})
			if err != nil {
				b.Fatal(err)
			}
			head, _ := repo.Head()
			hc, _ := repo.Git.CommitObject(head)
			branch := fmt.Sprintf("entire/bench-%d-%d", n, time.Now().UnixNano())
			paths := benchPaths(n)
			rnd := rand.New(rand.NewSource(1))
			ctx := context.Background()
			ts, _ := AppendJSONL(repo, nil, []byte("{\"type\":\"user\"}\n"))
			var times []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				changed := make([]string, 5)
				for j := range changed {
					changed[j] = paths[rnd.Intn(len(paths))]
					os.WriteFile(filepath.Join(dir, changed[j]), []byte(fmt.Sprintf("package x // edit %d %d\n", i, j)), 0o644)
				}
				b.StartTimer()
				start := time.Now()
				changes, err := repo.WorktreeChanges(changed)
				if err != nil {
					b.Fatal(err)
				}
				_, err = WriteStep(ctx, repo, Step{
					Branch: branch, BaseTree: hc.TreeHash, Changes: changes,
					MetadataDir: MetadataDirPrefix + "bench", Transcript: ts,
					MetadataFiles: map[string][]byte{PromptFile: []byte(fmt.Sprint("prompt ", i))},
					Message:       StepMessage("step", MetadataDirPrefix+"bench", "bench", StrategyManualCommit),
				}, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
			gittest.Git(b, dir, "checkout", "-q", "--", ".")
		})
	}
}

// transcriptTurn makes about size bytes of Claude-like JSONL lines whose
// text compresses like real transcripts.
func transcriptTurn(rnd *rand.Rand, size int, turn int) []byte {
	words := strings.Fields("the file function returns error value test package import struct field method call update " +
		"write read check build run change line code name type string int bool slice map channel context repository branch commit")
	var b bytes.Buffer
	for n := 0; b.Len() < size; n++ {
		var text strings.Builder
		for k := 0; k < 40+rnd.Intn(400); k++ {
			text.WriteString(words[rnd.Intn(len(words))])
			text.WriteByte(' ')
		}
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"%08x-%04x","sessionId":"bench","message":{"id":"msg_%d_%d","content":[{"type":"text","text":%q}]}}`+"\n",
			rnd.Uint32(), rnd.Intn(65536), turn, n, text.String())
	}
	return b.Bytes()
}

// measureGrowth appends a transcript that grows from first to last bytes
// in steps writes and returns the growth of .git/objects and the size of
// the final transcript stored as one zlib-compressed object.
func measureGrowth(t testing.TB, first, last, steps int) (growth, single int64) {
	dir := gittest.InitWithCommit(t)
	repo := openRepo(t, dir)
	before := duObjects(t, dir)
	rnd := rand.New(rand.NewSource(7))
	var all []byte
	var st *TranscriptState
	per := (last - first) / (steps - 1)
	for i := 0; i < steps; i++ {
		size := per
		if i == 0 {
			size = first
		}
		chunk := transcriptTurn(rnd, size, i)
		all = append(all, chunk...)
		var err error
		if st, err = AppendJSONL(repo, st, chunk); err != nil {
			t.Fatal(err)
		}
		// Each write is a commit of the metadata dir, as a step would be.
		changes, err := st.TreeChanges(repo, "m")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repo.BuildTree(plumbing.ZeroHash, changes); err != nil {
			t.Fatal(err)
		}
	}
	growth = duObjects(t, dir) - before
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(all)
	zw.Close()
	return growth, int64(z.Len())
}

func duObjects(t testing.TB, dir string) int64 {
	out, err := exec.Command("du", "-sb", filepath.Join(dir, ".git", "objects")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	fmt.Sscan(string(out), &n)
	return n
}

// TestTranscriptStorageIsLinear: a growing transcript written at every step
// costs about what it grew by, not its whole size at each step.
func TestTranscriptStorageIsLinear(t *testing.T) {
	t.Parallel()
	growth, single := measureGrowth(t, 1<<20, 12<<20, 10)
	t.Logf(".git/objects grew %d bytes; final transcript as one zlib object: %d bytes (%.2fx)", growth, single, float64(growth)/float64(single))
	if float64(growth) > 1.5*float64(single) {
		t.Errorf("storage growth %d > 1.5 x %d", growth, single)
	}
}

// BenchmarkTranscriptGrowth is the bar: 20 writes of a transcript
// growing from 2 MB to 120 MB, no gc.
func BenchmarkTranscriptGrowth(b *testing.B) {
	for i := 0; i < b.N; i++ {
		growth, single := measureGrowth(b, 2<<20, 120<<20, 20)
		b.ReportMetric(float64(growth)/(1<<20), "growth-MB")
		b.ReportMetric(float64(single)/(1<<20), "single-zlib-MB")
		b.ReportMetric(float64(growth)/float64(single), "ratio")
	}
}
