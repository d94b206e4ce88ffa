package redact

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The realistic sample mimics what a Claude Code Stop hook redacts: JSONL
// lines of a coding session whose bulk is tool results (source files read
// back, grep and git output, test logs). Its text is full of words holding
// short rule keywords ("task", "skip", "desk", "mask", "ask", "key",
// "token"), hex hashes, paths and UUIDs, so keyword prefiltering alone lets
// many rules run over most of it. It is generated from a fixed seed and holds
// a few planted secrets.

// sampleWords is the vocabulary of generated prose and identifiers.
var sampleWords = strings.Fields(`task skip desk mask ask asked asking risk disk
	whisker basket tasks flask kiosk husk dusk musk brisk frisk tusk
	client server handler request response context config settings
	parse parser value values offset offsets buffer reader writer stream
	checkpoint session transcript commit branch remote origin shadow metadata
	error errors wrap format string strings bytes index window windows rule
	rules match matches regexp pattern patterns entropy redact redacted line
	lines file files path paths directory repository worktree status result
	test tests bench benchmark assert expect want got input output build run
	user admin account service deploy release version update create
	the a an of to in for on with is are was it this that we now then also`)

// sampleGen builds deterministic transcript text.
type sampleGen struct {
	rng *rand.Rand
}

// sampleKeywordWords hold keywords of gitleaks' generic rules; they make
// up about 3% of the generated words, close to the real fixtures' rate.
var sampleKeywordWords = strings.Fields(`key keys keyboard monkey token tokens
	tokenizer secret secrets password access api auth`)

func (g *sampleGen) word() string {
	if g.rng.IntN(100) < 3 {
		return sampleKeywordWords[g.rng.IntN(len(sampleKeywordWords))]
	}
	return sampleWords[g.rng.IntN(len(sampleWords))]
}

func (g *sampleGen) hex(n int) string { return randFrom(g.rng, lowerHx, n) }

func (g *sampleGen) uuid() string {
	return g.hex(8) + "-" + g.hex(4) + "-4" + g.hex(3) + "-a" + g.hex(3) + "-" + g.hex(12)
}

func (g *sampleGen) ident() string {
	w := g.word()
	switch g.rng.IntN(3) {
	case 0:
		return w + strings.ToUpper(g.word()[:1]) + g.word()[1:]
	case 1:
		return w + "_" + g.word()
	}
	return w
}

func (g *sampleGen) path() string {
	parts := []string{"/home/dev/project"}
	for range 1 + g.rng.IntN(4) {
		parts = append(parts, g.word())
	}
	exts := []string{".go", ".ts", ".py", ".md", "_test.go", ".json"}
	return strings.Join(parts, "/") + exts[g.rng.IntN(len(exts))]
}

func (g *sampleGen) sentence() string {
	n := 6 + g.rng.IntN(14)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.word()
	}
	return strings.Join(ws, " ") + "."
}

// goSource returns a Go-like source file of about n bytes, numbered the way
// Claude Code's Read tool shows files.
func (g *sampleGen) goSource(n int) string {
	var b strings.Builder
	line := 1
	emit := func(s string) {
		fmt.Fprintf(&b, "%6d\t%s\n", line, s)
		line++
	}
	emit("package " + g.word())
	emit("")
	for b.Len() < n {
		switch g.rng.IntN(9) {
		case 0:
			emit("// " + g.sentence())
		case 1:
			emit(fmt.Sprintf("func (r *%s) %s(ctx context.Context, %s string) (*%s, error) {",
				g.ident(), g.ident(), g.ident(), g.ident()))
		case 2:
			emit(fmt.Sprintf("\tif err := %s.%s(%s); err != nil {", g.ident(), g.ident(), g.ident()))
			emit(fmt.Sprintf("\t\treturn nil, fmt.Errorf(\"%s %s %%s: %%w\", %s, err)", g.word(), g.word(), g.ident()))
			emit("\t}")
		case 3:
			emit(fmt.Sprintf("\t%s := %s[%d:%d]", g.ident(), g.ident(), g.rng.IntN(100), 100+g.rng.IntN(900)))
		case 4:
			emit(fmt.Sprintf("\tconst %s = %q // %s", g.ident(), g.hex(40), g.word()))
		case 5:
			emit(fmt.Sprintf("\t%s.%s(%q, %s)", g.ident(), g.ident(), g.path(), g.ident()))
		case 6:
			emit(fmt.Sprintf("\tskipTask := mask & %s // ask the desk about %s", g.ident(), g.word()))
		case 7:
			emit(fmt.Sprintf("\tid := %q", g.uuid()))
		default:
			emit("}")
			emit("")
		}
	}
	return b.String()
}

// gitLog returns `git log --stat`-like output.
func (g *sampleGen) gitLog(n int) string {
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "commit %s\nAuthor: Dev <dev@example.com>\nDate:   Mon Jan 5 10:%02d:00 2026 +0000\n\n    %s\n\n",
			g.hex(40), g.rng.IntN(60), g.sentence())
		for range 1 + g.rng.IntN(4) {
			fmt.Fprintf(&b, " %s | %d %s\n", g.path(), g.rng.IntN(200), strings.Repeat("+", g.rng.IntN(30)))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// grepOutput returns `grep -rn`-like output.
func (g *sampleGen) grepOutput(n int) string {
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "%s:%d:\t%s := %s(%s) // %s\n", g.path(), g.rng.IntN(900), g.ident(), g.ident(), g.ident(), g.sentence())
	}
	return b.String()
}

// testLog returns `go test -v`-like output.
func (g *sampleGen) testLog(n int) string {
	var b strings.Builder
	for b.Len() < n {
		name := "Test" + strings.ToUpper(g.word()[:1]) + g.word()[1:] + strings.ToUpper(g.word()[:1])
		fmt.Fprintf(&b, "=== RUN   %s\n--- PASS: %s (0.%02ds)\n", name, name, g.rng.IntN(100))
		if g.rng.IntN(5) == 0 {
			fmt.Fprintf(&b, "    %s:%d: skipping task %s: %s\n", g.path(), g.rng.IntN(300), g.uuid(), g.sentence())
		}
	}
	return b.String()
}

// realisticTranscript returns about size bytes of Claude Code JSONL.
func realisticTranscript(size int) []byte {
	g := &sampleGen{rng: rand.New(rand.NewPCG(2026, 11))}
	planted := plantedSecrets(77)
	var out []byte
	for n := 0; len(out) < size; n++ {
		uuid := g.uuid()
		toolID := "toolu_01" + randFrom(g.rng, alnum, 22)
		envelope := func(typ string, msg any, extra map[string]any) []byte {
			m := map[string]any{
				"parentUuid": g.uuid(), "isSidechain": false, "userType": "external",
				"cwd": "/home/dev/project", "sessionId": "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
				"version": "2.1.42", "gitBranch": "main", "type": typ, "uuid": uuid,
				"timestamp": fmt.Sprintf("2026-02-01T10:%02d:%02d.000Z", n/60%60, n%60), "message": msg,
			}
			for k, v := range extra {
				m[k] = v
			}
			return claudeLine(m)
		}
		var content string
		switch n % 6 {
		case 0:
			out = append(out, envelope("assistant", map[string]any{
				"id": "msg_01" + randFrom(g.rng, alnum, 22), "type": "message", "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{map[string]any{"type": "text", "text": g.sentence() + " " + g.sentence() + "\n\n" + g.sentence()}},
			}, map[string]any{"requestId": "req_01" + randFrom(g.rng, alnum, 22)})...)
			continue
		case 1:
			out = append(out, envelope("assistant", map[string]any{
				"id": "msg_01" + randFrom(g.rng, alnum, 22), "type": "message", "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{map[string]any{"type": "tool_use", "id": toolID, "name": "Read",
					"input": map[string]any{"file_path": g.path()}}},
			}, nil)...)
			continue
		case 2:
			content = g.goSource(8_000 + g.rng.IntN(40_000))
		case 3:
			content = g.gitLog(4_000 + g.rng.IntN(20_000))
		case 4:
			content = g.grepOutput(2_000 + g.rng.IntN(20_000))
		default:
			content = g.testLog(2_000 + g.rng.IntN(10_000))
		}
		if n%40 == 39 {
			content += "\n" + planted[(n/40)%len(planted)].text + "\n"
		}
		out = append(out, envelope("user", map[string]any{"role": "user", "content": []any{map[string]any{
			"tool_use_id": toolID, "type": "tool_result", "content": content, "is_error": false,
		}}}, map[string]any{"toolUseResult": map[string]any{"stdout": content[:min(len(content), 2000)], "stderr": "", "interrupted": false}})...)
	}
	return out
}

// realisticSampleSize is the size of the benchmark sample: about what four
// turns of a busy session append.
const realisticSampleSize = 4 << 20

// BenchmarkRedactRealisticJSONL redacts the realistic sample with JSONL, the
// Stop hook's path.
func BenchmarkRedactRealisticJSONL(b *testing.B) {
	data := realisticTranscript(realisticSampleSize)
	r := newTestRedactor(b, Options{})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		_ = r.JSONL(data)
	}
}

// BenchmarkRedactRealisticText redacts the realistic sample's decoded tool
// results as plain text.
func BenchmarkRedactRealisticText(b *testing.B) {
	data := realisticTranscript(realisticSampleSize)
	var texts []string
	total := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		strs, err := walkJSON(line)
		if err != nil {
			continue
		}
		for _, s := range strs {
			t := decodeJSONString(line[s.start:s.end])
			texts = append(texts, t)
			total += len(t)
		}
	}
	r := newTestRedactor(b, Options{})
	b.SetBytes(int64(total))
	b.ResetTimer()
	for b.Loop() {
		for _, t := range texts {
			_ = r.Text(t)
		}
	}
}

// TestRealisticTranscriptShape checks the sample generator: JSONL of the
// requested size whose planted secrets are all redacted.
func TestRealisticTranscriptShape(t *testing.T) {
	t.Parallel()
	data := realisticTranscript(1 << 20)
	if len(data) < 1<<20 || len(data) > 2<<20 {
		t.Fatalf("sample is %d bytes", len(data))
	}
	r := newTestRedactor(t, Options{})
	out := r.JSONL(data)
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) > 0 && !bytes.HasSuffix(line, []byte("\n")) {
			t.Fatalf("line without newline")
		}
	}
	planted := plantedSecrets(77)
	for n := 39; n < bytes.Count(data, []byte("\n")); n += 40 {
		if n%6 < 2 {
			continue // no tool result on this line
		}
		p := planted[(n/40)%len(planted)]
		for _, f := range secretForms(p.secret) {
			if bytes.Contains(out, []byte(f)) {
				t.Errorf("%s secret survived", p.kind)
			}
		}
	}
}
