package agenttest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
)

// testProtected checks DirProtector: the directories are names at the
// repository root, the registry knows them, and the hook settings file
// lies in one of them (an agent's configuration is never rewound).
func testProtected(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	p := capability[agent.DirProtector](t, fx)
	dirs := p.ProtectedDirs()
	if len(dirs) == 0 {
		if a.GetHookConfigPath() != "" && newAgentConfigDir(a) {
			t.Fatal("ProtectedDirs is empty")
		}
		t.Skip("the agent keeps no configuration directory of its own")
	}
	for _, d := range dirs {
		if d == "" || d == "." || d == ".." || strings.ContainsAny(d, `/\`) {
			t.Errorf("protected dir %q is not a name at the repository root", d)
		}
		if !agent.IsProtectedDir(d) {
			t.Errorf("IsProtectedDir(%q) = false for a registered agent's directory", d)
		}
	}
	if cfg := a.GetHookConfigPath(); cfg != "" {
		first, _, _ := strings.Cut(filepath.ToSlash(cfg), "/")
		if !slices.Contains(dirs, first) {
			t.Errorf("hook settings %s lie outside the protected dirs %q", cfg, dirs)
		}
	}
}

// testSessionStore checks SessionStore: the test override variable is the
// fixture's, a new session's file is in the session directory, and
// StorageDir is the override itself with it, the fixture's StorageDir
// below the home directory without it.
func testSessionStore(t *testing.T, fx Fixture) {
	home := t.TempDir()
	override := filepath.Join(t.TempDir(), "sessions")
	a := fx.NewWithEnv(map[string]string{fx.SessionDirEnv: override}, home)
	st, ok := a.(agent.SessionStore)
	if !ok {
		t.Skip("agent does not restore sessions")
	}
	if fx.External {
		testExternalSessionStore(t, fx, a, st)
		return
	}
	if got := st.TestSessionDirEnv(); got != fx.SessionDirEnv {
		t.Errorf("TestSessionDirEnv = %q, want %q", got, fx.SessionDirEnv)
	}
	repo := t.TempDir()
	s := &agent.AgentSession{SessionID: fx.Session.ID, AgentName: a.Name(), RepoPath: repo, NativeData: fx.Session.Data}
	path, err := st.SessionFilePath(s)
	if err != nil || path != filepath.Join(override, fx.Session.FileName) {
		t.Errorf("SessionFilePath with the override = %q, %v; want %s", path, err, filepath.Join(override, fx.Session.FileName))
	}
	if got := st.StorageDir(override); got != override {
		t.Errorf("StorageDir with the override = %q, want the override %q", got, override)
	}
	ref := &agent.AgentSession{SessionID: fx.Session.ID, SessionRef: filepath.Join(repo, "elsewhere.jsonl")}
	if got, err := st.SessionFilePath(ref); err != nil || got != ref.SessionRef {
		t.Errorf("SessionFilePath with a SessionRef = %q, %v", got, err)
	}
	if _, err := st.SessionFilePath(&agent.AgentSession{SessionID: "../x", RepoPath: repo}); err == nil {
		t.Errorf("SessionFilePath accepted a session ID with a path separator")
	}

	plain := fx.NewWithEnv(nil, home).(agent.SessionStore)
	ppath, err := plain.SessionFilePath(s)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, fx.StorageDir)
	if dir := plain.StorageDir(filepath.Dir(ppath)); dir != want || !strings.HasPrefix(ppath, dir+string(filepath.Separator)) {
		t.Errorf("StorageDir(%s) = %s, want %s", filepath.Dir(ppath), dir, want)
	}
}

// testFormat checks TranscriptFormatter against the agent's transcripts:
// the format told from a file's first 4 KiB is the one told from its whole
// content, and a JSONL growth entry is JSONL. Without the capability every
// transcript must be JSONL, which the chunking round trip shows.
func testFormat(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	for _, path := range append([]string{writeTemp(t, fx.Session.Data)}, fx.TranscriptFiles...) {
		content := readFile(t, path)
		whole := agent.FormatOf(a, content)
		if got := agent.FileFormat(a, path); got != whole {
			t.Errorf("%s: format from the file's start %v, from the whole content %v", filepath.Base(path), got, whole)
		}
		if whole == agent.TranscriptDocument {
			if _, ok := a.(agent.TranscriptChunker); !ok {
				t.Errorf("%s: a document transcript, but the agent has no chunker to store it", filepath.Base(path))
			}
		}
	}
	if fx.AppendEntry != nil {
		if got := agent.FormatOf(a, append(fx.AppendEntry(0), '\n')); got != agent.TranscriptJSONL {
			t.Errorf("growth entry told as %v, want JSONL", got)
		}
	}
	if got := agent.FileFormat(a, filepath.Join(t.TempDir(), "missing")); got != agent.TranscriptJSONL {
		t.Errorf("missing file told as %v, want JSONL", got)
	}
}

// testRecognize checks that a stored transcript of the agent is given back
// to it (agent.ForTranscript, with its label and without when it
// recognises its own), and that no other registered agent claims it.
func testRecognize(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	_, recognizes := a.(agent.TranscriptRecognizer)
	for _, path := range append([]string{writeTemp(t, fx.Session.Data)}, fx.TranscriptFiles...) {
		content := readFile(t, path)
		if got := agent.ForTranscript(a.Type(), content); got == nil || got.Name() != a.Name() {
			t.Errorf("%s: ForTranscript(%q) = %v", filepath.Base(path), a.Type(), got)
		}
		if r := agent.Recognize(content); r != nil && r.Name() != a.Name() {
			t.Errorf("%s: recognised by %s", filepath.Base(path), r.Name())
		}
		if recognizes {
			if got := agent.ForTranscript("", content); got == nil || got.Name() != a.Name() {
				t.Errorf("%s: ForTranscript without a label = %v", filepath.Base(path), got)
			}
		}
	}
}

// testLastEntryTime checks agent.LastEntryTime on the fixture session.
func testLastEntryTime(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	if got := agent.LastEntryTime(a, fx.Session.Data); !got.Equal(fx.Session.LastTime) {
		t.Errorf("LastEntryTime = %v, want %v", got, fx.Session.LastTime)
	}
	if got := agent.LastEntryTime(a, nil); !got.IsZero() {
		t.Errorf("LastEntryTime(empty) = %v", got)
	}
}

// testEnable checks Enabler: the hook settings file comes first, and every
// file is a clean relative slash path with a description.
func testEnable(t *testing.T, fx Fixture) {
	a := newAgent(fx, t)
	e := capability[agent.Enabler](t, fx)
	files := e.EnableSpec().Files
	if fx.External && len(files) == 0 {
		return // the program installs what it installs
	}
	if len(files) == 0 || files[0].Path != a.GetHookConfigPath() {
		t.Fatalf("EnableSpec files %+v: want the hook settings %s first", files, a.GetHookConfigPath())
	}
	seen := map[string]bool{}
	for _, f := range files {
		if f.Path == "" || f.Path != filepath.ToSlash(filepath.Clean(f.Path)) || strings.HasPrefix(f.Path, "/") || strings.HasPrefix(f.Path, "..") {
			t.Errorf("setup file %q is not a clean relative slash path", f.Path)
		}
		if f.What == "" || seen[f.Path] {
			t.Errorf("setup file %q: empty description or listed twice", f.Path)
		}
		seen[f.Path] = true
	}
}

// testSessionIDEnv checks SessionIDEnver through agent.SessionIDFromEnv.
func testSessionIDEnv(t *testing.T, fx Fixture) {
	e := capability[agent.SessionIDEnver](t, fx)
	name := e.SessionIDEnv()
	if name == "" {
		t.Fatal("SessionIDEnv is empty")
	}
	env := map[string]string{name: "sess-from-env"}
	if got := agent.SessionIDFromEnv(func(k string) string { return env[k] }); got != "sess-from-env" {
		t.Errorf("SessionIDFromEnv = %q", got)
	}
}

// testHookTable checks the table-driven hook methods: installed and no-op
// verbs are disjoint and every one of them has a hook type.
func testHookTable(t *testing.T, fx Fixture) {
	hh := capability[agent.HookHandler](t, fx)
	r := capability[agent.HookVerbResolver](t, fx)
	installed := hh.GetHookNames()
	var noOps []string
	if n, ok := hh.(agent.NoOpHookVerbs); ok {
		noOps = n.NoOpHookVerbs()
	}
	for _, v := range noOps {
		if slices.Contains(installed, v) {
			t.Errorf("verb %q is both installed and a no-op", v)
		}
	}
	for _, v := range append(slices.Clone(installed), noOps...) {
		if _, ok := r.HookTypeForVerb(v); !ok {
			t.Errorf("verb %q has no hook type", v)
		}
	}
	if _, ok := r.HookTypeForVerb("no-such-verb"); ok {
		t.Errorf("an unknown verb has a hook type")
	}
}

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "session")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// newAgentConfigDir reports whether the agent's hook settings lie in a
// directory named after an agent (".claude"), not in one the project owns
// (".github").
func newAgentConfigDir(a agent.Agent) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(a.GetHookConfigPath()), "/")
	return first != ".github"
}

// testExternalSessionStore checks an external agent's SessionStore: the
// session goes where the program resolves it in the directory it names,
// and a reference outside that directory, or an ID that is a path, is
// refused (the protocol's session_ref constraints).
func testExternalSessionStore(t *testing.T, fx Fixture, a agent.Agent, st agent.SessionStore) {
	repo := t.TempDir()
	dir, err := a.GetSessionDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	s := &agent.AgentSession{SessionID: fx.Session.ID, AgentName: a.Name(), RepoPath: repo, NativeData: fx.Session.Data}
	path, err := st.SessionFilePath(s)
	if err != nil || filepath.Dir(path) != dir || filepath.Base(path) != fx.Session.FileName {
		t.Errorf("SessionFilePath = %q, %v; want %s", path, err, filepath.Join(dir, fx.Session.FileName))
	}
	inside := &agent.AgentSession{SessionID: fx.Session.ID, RepoPath: repo, SessionRef: filepath.Join(dir, "x.jsonl")}
	if got, err := st.SessionFilePath(inside); err != nil || got != inside.SessionRef {
		t.Errorf("SessionFilePath with a SessionRef inside = %q, %v", got, err)
	}
	for _, ref := range []string{filepath.Join(repo, "elsewhere.jsonl"), dir + "/../x.jsonl", dir + "/./x.jsonl"} {
		if got, err := st.SessionFilePath(&agent.AgentSession{SessionID: fx.Session.ID, RepoPath: repo, SessionRef: ref}); err == nil {
			t.Errorf("SessionFilePath accepted %q: %q", ref, got)
		}
	}
	if _, err := st.SessionFilePath(&agent.AgentSession{SessionID: "../x", RepoPath: repo}); err == nil {
		t.Errorf("SessionFilePath accepted a session ID with a path separator")
	}
}
