package agenttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
)

func testHookInput(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	resolver, _ := a.(agent.HookVerbResolver)
	covered := map[string]bool{}
	for _, hc := range fx.Hooks {
		covered[hc.Verb] = true
		t.Run(hc.Verb, func(t *testing.T) {
			t.Parallel()
			ht := hc.Want.HookType
			if _, parses := a.(agent.HookEventParser); resolver != nil && !parses {
				got, ok := resolver.HookTypeForVerb(hc.Verb)
				if !ok || got != hc.Want.HookType {
					t.Fatalf("HookTypeForVerb(%q) = %q, %v; want %q", hc.Verb, got, ok, hc.Want.HookType)
				}
			}
			var in *agent.HookInput
			var err error
			if ep, ok := a.(agent.HookEventParser); ok {
				in, err = ep.ParseHookEvent(hc.Verb, strings.NewReader(hc.Payload), nil)
				if err == nil && in == nil {
					if hc.Want.HookType != "" {
						t.Fatalf("parse: no event, want %q", hc.Want.HookType)
					}
					return
				}
			} else {
				in, err = a.ParseHookInput(ht, strings.NewReader(hc.Payload))
			}
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			got := *in
			if fx.External {
				got.SessionRef = "" // the copy, checked by the package's own tests
			}
			if got.RawData == nil {
				t.Errorf("RawData not kept")
			}
			got.RawData, got.Timestamp = nil, hc.Want.Timestamp
			if hc.Want.SessionRef == "" && got.SessionRef != "" && strings.Contains(got.SessionRef, hc.Want.SessionID) {
				// Derived from the session ID by an agent whose payloads
				// do not all name the transcript.
				got.SessionRef = ""
			}
			want := hc.Want
			want.RawData = nil
			if !reflect.DeepEqual(normalize(got), normalize(want)) {
				t.Errorf("parsed\n%+v\nwant\n%+v", normalize(got), normalize(want))
			}
			if a.GetSessionID(in) != hc.Want.SessionID {
				t.Errorf("GetSessionID = %q", a.GetSessionID(in))
			}
		})
	}
	if hh, ok := a.(agent.HookHandler); ok {
		for _, verb := range hh.GetHookNames() {
			if !covered[verb] {
				t.Errorf("no hook payload case for installed verb %q", verb)
			}
		}
	}
	for name, input := range map[string]string{"empty": "", "whitespace": " \n\t"} {
		if _, err := a.ParseHookInput(agent.HookStop, strings.NewReader(input)); !errors.Is(err, agent.ErrEmptyInput) {
			t.Errorf("%s input: err = %v, want ErrEmptyInput", name, err)
		}
	}
	wrongType := fx.WrongTypePayload
	if wrongType == "" {
		wrongType = `{"session_id": 42}`
	}
	for _, input := range []string{"{", "not json", `["array"]`, wrongType, `{"a":1} trailing`} {
		if _, err := a.ParseHookInput(agent.HookStop, strings.NewReader(input)); !errors.Is(err, agent.ErrMalformedInput) {
			t.Errorf("input %q: err = %v, want ErrMalformedInput", input, err)
		}
	}
}

// normalize makes empty and nil byte slices compare equal and compacts JSON.
func normalize(in agent.HookInput) agent.HookInput {
	c := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		var buf bytes.Buffer
		if json.Compact(&buf, b) == nil {
			return buf.Bytes()
		}
		return b
	}
	in.ToolInput, in.ToolResponse = c(in.ToolInput), c(in.ToolResponse)
	return in
}

func testSession(t *testing.T, fx Fixture) {
	sc := fx.Session
	home := t.TempDir()
	override := filepath.Join(t.TempDir(), "sessions")
	a := fx.NewWithEnv(map[string]string{fx.SessionDirEnv: override}, home)
	repo := t.TempDir()

	dir, err := a.GetSessionDir(repo)
	if err != nil || dir != override {
		t.Fatalf("GetSessionDir with %s = %q, %v; want %q", fx.SessionDirEnv, dir, err, override)
	}
	plain := fx.NewWithEnv(nil, home)
	pdir, err := plain.GetSessionDir(repo)
	if err != nil || !strings.HasPrefix(pdir, home+string(filepath.Separator)) {
		t.Errorf("GetSessionDir without override = %q, %v; want under %q", pdir, err, home)
	}

	s := &agent.AgentSession{SessionID: sc.ID, AgentName: a.Name(), RepoPath: repo, NativeData: sc.Data}
	if err := a.WriteSession(s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(override, sc.FileName)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("session not written to %s: %v", path, err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("session mode %v, want 0600", st.Mode().Perm())
	}
	if dst, _ := os.Stat(override); dst.Mode().Perm() != 0o750 {
		t.Errorf("session dir mode %v, want 0750", dst.Mode().Perm())
	}
	got, err := a.ReadSession(&agent.HookInput{SessionID: sc.ID, SessionRef: path})
	if err != nil {
		t.Fatal(err)
	}
	if sc.HeaderNamesRepo {
		got.NativeData = append(firstLine(sc.Data), afterFirstLine(got.NativeData)...)
	}
	if !bytes.Equal(got.NativeData, sc.Data) || got.SessionID != sc.ID || got.SessionRef != path {
		t.Errorf("ReadSession did not return what was written")
	}
	if !reflect.DeepEqual(got.ModifiedFiles, sc.ModifiedFiles) {
		t.Errorf("ModifiedFiles = %q, want %q", got.ModifiedFiles, sc.ModifiedFiles)
	}
	if p := got.GetLastUserPrompt(); p != sc.LastPrompt {
		t.Errorf("GetLastUserPrompt = %q, want %q", p, sc.LastPrompt)
	}
	if r := got.GetLastAssistantResponse(); r != sc.LastAssistant {
		t.Errorf("GetLastAssistantResponse = %q, want %q", r, sc.LastAssistant)
	}
	tr := got.TruncateAtUUID(sc.TruncateID)
	if _, cuts := a.(agent.TranscriptCutter); !cuts && !bytes.Equal(tr.NativeData, sc.Data) {
		t.Errorf("TruncateAtUUID changed the transcript of an agent without entry IDs")
	}
	if !bytes.Equal(got.NativeData, sc.Data) {
		t.Errorf("TruncateAtUUID modified the receiver")
	}
	// Writing back to an explicit SessionRef overwrites it.
	tr.SessionRef = path
	if err := a.WriteSession(tr); err != nil {
		t.Fatal(err)
	}
	if b := readFile(t, path); !bytes.Equal(b, tr.NativeData) {
		t.Errorf("WriteSession to SessionRef did not overwrite")
	}
	if err := a.WriteSession(&agent.AgentSession{SessionID: "../escape", RepoPath: repo}); err == nil {
		t.Errorf("WriteSession accepted a session id with a path separator")
	}
}

func testChunking(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	if len(fx.TranscriptFiles) == 0 {
		t.Skip("no transcript files")
	}
	for _, path := range fx.TranscriptFiles {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			content := readFile(t, path)
			for _, size := range []int{len(content) + 1, len(content)/3 + 1, 256 << 10} {
				chunks, err := agent.ChunkTranscriptSize(content, a.Type(), size)
				if errors.Is(err, agent.ErrLineTooLarge) {
					continue // a single entry larger than this size
				}
				if err != nil {
					t.Fatalf("chunk at %d: %v", size, err)
				}
				for i, c := range chunks {
					if len(c) > size {
						t.Errorf("chunk %d is %d bytes > %d", i, len(c), size)
					}
				}
				back, err := agent.ReassembleTranscript(chunks, a.Type())
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(back, content) && !jsonEqual(back, content) {
					t.Errorf("round trip at size %d (%d chunks) changed the transcript", size, len(chunks))
				}
			}
		})
	}
}

func testScan(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	sc, ok := a.(agent.TranscriptScanner)
	if !ok {
		t.Skip("agent does not scan transcripts")
	}
	for _, path := range fx.TranscriptFiles {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			whole, err := sc.ScanTranscript(path, agent.Position{})
			if err != nil {
				t.Fatal(err)
			}
			// Scanning the second half from the first half's end position
			// sees the same entries as one scan.
			half, err := sc.ScanTranscript(path, agent.Position{Entries: whole.To.Entries / 2})
			if err != nil {
				t.Fatal(err)
			}
			if half.To != whole.To {
				t.Errorf("end position from the middle %+v, from the start %+v", half.To, whole.To)
			}
			again, err := sc.ScanTranscript(path, whole.To)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Prompts)+len(again.ModifiedFiles)+len(again.ToolUses) != 0 || again.Tokens.APICallCount != 0 {
				t.Errorf("scan from the end found new work: %+v", again)
			}
		})
	}
	if fx.AppendEntry == nil {
		return
	}
	t.Run("Growth", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "t.jsonl")
		var buf []byte
		for i := 0; i < 5; i++ {
			buf = append(append(buf, fx.AppendEntry(i)...), '\n')
		}
		partial := fx.AppendEntry(5)
		if err := os.WriteFile(path, append(append([]byte(nil), buf...), partial[:len(partial)/2]...), 0o600); err != nil {
			t.Fatal(err)
		}
		first, err := sc.ScanTranscript(path, agent.Position{})
		if err != nil {
			t.Fatal(err)
		}
		if first.To.Entries != 5 || first.To.Offset != int64(len(buf)) {
			t.Fatalf("partial last line consumed: %+v (want 5 entries, offset %d)", first.To, len(buf))
		}
		buf = append(append(buf, partial...), '\n')
		if err := os.WriteFile(path, buf, 0o600); err != nil {
			t.Fatal(err)
		}
		next, err := sc.ScanTranscript(path, first.To)
		if err != nil {
			t.Fatal(err)
		}
		if next.To.Entries != 6 || next.To.Offset != int64(len(buf)) {
			t.Errorf("after completing the line: %+v", next.To)
		}
	})
}

// testSniff checks that the agent's TranscriptSniffer accepts its real
// transcripts through agent.CheckTranscript, and that CheckTranscript
// refuses what is no transcript: text, a FIFO (without hanging), a device.
func testSniff(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	if _, ok := a.(agent.TranscriptSniffer); !ok {
		t.Skip("agent does not sniff transcripts")
	}
	for _, path := range fx.TranscriptFiles {
		if err := agent.CheckTranscript(a, path); err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "text.jsonl")
	if err := os.WriteFile(text, []byte("hello, not a transcript\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, []byte(`{"partial":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := agent.CheckTranscript(a, empty); err != nil {
		t.Errorf("a transcript without a complete line yet: %v", err)
	}
	bad := []string{text, dir, os.DevNull}
	if fifo := filepath.Join(dir, "fifo"); mkfifo(fifo) == nil {
		bad = append(bad, fifo)
	}
	for _, p := range bad {
		if err := agent.CheckTranscript(a, p); !errors.Is(err, agent.ErrNotTranscript) {
			t.Errorf("CheckTranscript(%s) = %v, want ErrNotTranscript", p, err)
		}
	}
}

// firstLine returns data's first line with its newline.
func firstLine(data []byte) []byte {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return bytes.Clone(data[:i+1])
	}
	return bytes.Clone(data)
}

// afterFirstLine returns what follows data's first line.
func afterFirstLine(data []byte) []byte {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[i+1:]
	}
	return nil
}
