package e2etest

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// CheckpointOf returns the Entire-Checkpoint trailer of a commit message.
func CheckpointOf(t *testing.T, msg string) string {
	t.Helper()
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			return v
		}
	}
	t.Fatalf("no Entire-Checkpoint trailer in:\n%s", msg)
	return ""
}

// SessionMeta reads the metadata.json of slot 0 of a checkpoint.
func SessionMeta(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	raw := gittest.Git(t, dir, "show", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/0/metadata.json")
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("session metadata of %s: %v\n%s", id, err, raw)
	}
	return m
}

// RewindList returns `entire rewind --list` as decoded JSON objects.
func (r *SessionRepo) RewindList() []map[string]any {
	r.T.Helper()
	var pts []map[string]any
	if err := json.Unmarshal([]byte(r.MustEntire("rewind", "--list")), &pts); err != nil {
		r.T.Fatal(err)
	}
	return pts
}

// WriteState writes a session state file directly, as an older entire (or
// a crash) would have left it.
func (r *SessionRepo) WriteState(id, json string) {
	r.T.Helper()
	if err := os.MkdirAll(r.Dir+"/.git/entire-sessions", 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(r.StatePath(id), []byte(json), 0o600); err != nil {
		r.T.Fatal(err)
	}
}

// ShadowBranches lists the shadow branches of the repository.
func (r *SessionRepo) ShadowBranches() []string {
	r.T.Helper()
	out := gittest.Git(r.T, r.Dir, "branch", "--list", "entire/*", "--format=%(refname:short)")
	var bs []string
	for _, b := range strings.Fields(out) {
		if b != "entire/checkpoints/v1" {
			bs = append(bs, b)
		}
	}
	return bs
}

// StatePath is the state file of a session.
func (r *SessionRepo) StatePath(id string) string {
	return filepath.Join(r.Dir, ".git", "entire-sessions", id+".json")
}

// State reads a session's State file as a map (nil when absent).
func (r *SessionRepo) State(id string) map[string]any {
	r.T.Helper()
	b, err := os.ReadFile(r.StatePath(id))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		r.T.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.T.Fatal(err)
	}
	return m
}

// ListedPoint is a rewind point as `entire rewind --list` prints it.
type ListedPoint struct {
	ID          string `json:"id"`
	Message     string `json:"message"`
	MetadataDir string `json:"metadata_dir"`
	IsLogsOnly  bool   `json:"is_logs_only"`
	Condensed   string `json:"condensation_id"`
	SessionID   string `json:"session_id"`
}

// Points lists the rewind points of the work tree, newest first.
func (r *SessionRepo) Points() []ListedPoint {
	r.T.Helper()
	out, errOut, code := r.Entire("rewind", "--list")
	if code != 0 {
		r.T.Fatalf("rewind --list: %d %s", code, errOut)
	}
	var pts []ListedPoint
	if err := json.Unmarshal([]byte(out), &pts); err != nil {
		r.T.Fatalf("rewind --list output %q: %v", out, err)
	}
	return pts
}

// PointOf returns the ID of the newest rewind point whose message starts
// with prefix, failing the test when there is none.
func (r *SessionRepo) PointOf(prefix string) string {
	r.T.Helper()
	pts := r.Points()
	for _, p := range pts {
		if strings.HasPrefix(p.Message, prefix) {
			return p.ID
		}
	}
	r.T.Fatalf("no rewind point starting %q in %+v", prefix, pts)
	return ""
}

// Read hands out the next line, newline included.
func (l *LineReader) Read(p []byte) (int, error) {
	if len(l.Lines) == 0 {
		return 0, io.EOF
	}
	n := copy(p, l.Lines[0]+"\n")
	l.Lines = l.Lines[1:]
	return n, nil
}

// TrailerRe matches an Entire-Checkpoint trailer; its group is the ID.
var TrailerRe = regexp.MustCompile(`(?m)^Entire-Checkpoint: ([0-9a-f]{12}|[0-7][0-9A-HJKMNP-TV-Z]{25})$`)

// CpPath is the path of a checkpoint file as git names it: in the
// checkpoint's own ref for a ULID (SPEC 10.3), on the metadata branch for
// a hex ID.
func CpPath(id, rel string) string {
	if len(id) == 26 {
		return CpRef(id) + ":" + rel
	}
	return "entire/checkpoints/v1:" + id[:2] + "/" + id[2:] + "/" + rel
}

// CpTree is the tree-ish of a checkpoint's root as git names it: its ref
// (a ULID) or its directory on the metadata branch.
func CpTree(id string) string {
	if len(id) == 26 {
		return CpRef(id) + "^{tree}"
	}
	return "entire/checkpoints/v1:" + id[:2] + "/" + id[2:]
}

// CpRef is the ref of a checkpoint in the git-refs layout.
func CpRef(id string) string {
	return "refs/entire/checkpoints/" + id[len(id)-2:] + "/" + id
}

// ShadowBranches lists the shadow branches (all entire/* but the metadata
// branch).
func ShadowBranches(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, b := range strings.Fields(gittest.Git(t, dir, "branch", "--list", "entire/*", "--format=%(refname:short)")) {
		if b != "entire/checkpoints/v1" {
			out = append(out, b)
		}
	}
	return out
}

// HasCheckpoint reports whether checkpoint id is stored in dir: on the
// metadata branch, or (a ULID) as its own ref.
func HasCheckpoint(t *testing.T, dir, id string) bool {
	t.Helper()
	_, err := gittest.GitErr(dir, "cat-file", "-e", CpPath(id, "metadata.json"))
	return err == nil
}

// AssertNoPendingMarks checks that no condensation is left pending.
func (r *SessionRepo) AssertNoPendingMarks() {
	r.T.Helper()
	if entries, _ := os.ReadDir(GitPath(r.T, r.Dir, "entire-pending")); len(entries) != 0 {
		r.T.Errorf("pending condensation marks left: %v", entries)
	}
}

// ReadTranscript returns the live transcript.
func (r *SessionRepo) ReadTranscript() string {
	r.T.Helper()
	b, err := os.ReadFile(r.Transcript)
	if err != nil {
		r.T.Fatal(err)
	}
	return string(b)
}

var metadataSubjectRe = regexp.MustCompile(`^(Checkpoint: [0-9a-f]{12}|Finalize transcript for Checkpoint: [0-9a-f]{12}|Initialize (metadata|sessions) branch)$`)

// metadataLock is the lock file of the metadata branch.
func metadataLock(t *testing.T, dir string) string {
	return GitPath(t, dir, "refs/heads/entire/checkpoints/v1.lock")
}

// TrailerID is the checkpoint ID of the trailer of commit rev in dir.
func TrailerID(t *testing.T, dir, rev string) string {
	t.Helper()
	for _, l := range strings.Split(gittest.Git(t, dir, "log", "-1", "--format=%B", rev), "\n") {
		if v, ok := strings.CutPrefix(l, "Entire-Checkpoint: "); ok {
			return v
		}
	}
	t.Fatalf("commit %s has no checkpoint trailer", rev)
	return ""
}

// ShadowTranscript returns the transcript of the latest step on the
// session's shadow branch.
func ShadowTranscript(t *testing.T, r *SessionRepo) string {
	t.Helper()
	shadows := ShadowBranches(t, r.Dir)
	if len(shadows) != 1 {
		t.Fatalf("shadow branches %v", shadows)
	}
	return gittest.Git(t, r.Dir, "show", shadows[0]+":.entire/metadata/"+r.SessionID+"/full.jsonl")
}

// AnyStrings converts a decoded JSON array of strings.
func AnyStrings(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// AddMetadata adds files (paths relative to the root of the metadata
// branch) onto entire/checkpoints/v1 of dir as one new commit, creating the
// branch when it does not exist.
func AddMetadata(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	work := t.TempDir()
	for p, c := range files {
		gittest.WriteFile(t, work, p, c)
	}
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")}
	git := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gittest.Env(t.TempDir()), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	parent, _ := exec.Command("git", "-C", dir, "rev-parse", "--verify", "--quiet", "refs/heads/entire/checkpoints/v1").Output()
	var parentArgs []string
	if p := strings.TrimSpace(string(parent)); p != "" {
		git(idx, "read-tree", p)
		parentArgs = []string{"-p", p}
	}
	git(idx, "--work-tree="+work, "add", "--ignore-removal", ".")
	tree := git(idx, "write-tree")
	c := git(nil, append(append([]string{"commit-tree", tree}, parentArgs...), "-m", "Checkpoint: test")...)
	git(nil, "update-ref", "refs/heads/entire/checkpoints/v1", c)
}

// SameTranscript reports a difference between two transcripts without
// printing megabytes.
func SameTranscript(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes, want %d; first difference at byte %d: %q vs %q", what, len(got), len(want), i,
		got[i:min(len(got), i+80)], want[i:min(len(want), i+80)])
}

// LongestLine is the length of the longest line of s.
func LongestLine(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, len(l))
	}
	return n
}

// PointOfMessage is the rewind point among pts whose message contains msg
// (lower case).
func PointOfMessage(t *testing.T, pts []ListedPoint, msg string) ListedPoint {
	t.Helper()
	for _, p := range pts {
		if strings.Contains(strings.ToLower(p.Message), msg) {
			return p
		}
	}
	t.Fatalf("no point %q in %+v", msg, pts)
	return ListedPoint{}
}

// ShadowBranch returns the session's shadow branch ("" when none).
func (r *SessionRepo) ShadowBranch() string {
	r.T.Helper()
	for _, b := range strings.Fields(gittest.Git(r.T, r.Dir, "branch", "--list", "entire/*", "--format=%(refname:short)")) {
		if b != "entire/checkpoints/v1" {
			return b
		}
	}
	return ""
}

// SlotFile reads a file of session slot 0 of a committed checkpoint.
func (r *SessionRepo) SlotFile(id, name string) string {
	r.T.Helper()
	return gittest.Git(r.T, r.Dir, "show", "entire/checkpoints/v1:"+id[:2]+"/"+id[2:]+"/0/"+name)
}

// PendingTask reads a pending task record of the session.
func (r *SessionRepo) PendingTask(key string) map[string]any {
	r.T.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, ".entire", "tmp", "subagents", r.SessionID, key+".json"))
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.T.Fatalf("pending record %s: %v", key, err)
	}
	return m
}

// ShadowFile returns path's content at the tip of the repository's one
// shadow branch, and whether it is there as a file.
func (r *SessionRepo) ShadowFile(path string) (string, bool) {
	r.T.Helper()
	b := ShadowBranches(r.T, r.Dir)
	if len(b) != 1 {
		r.T.Fatalf("shadow branches %q", b)
	}
	out, err := gittest.GitErr(r.Dir, "cat-file", "-p", b[0]+":"+path)
	return out, err == nil
}

// ShadowEntry returns the mode and type of path at the shadow tip ("" when
// absent).
func (r *SessionRepo) ShadowEntry(path string) string {
	r.T.Helper()
	b := ShadowBranches(r.T, r.Dir)
	out, _ := gittest.GitErr(r.Dir, "ls-tree", b[0], "--", path)
	if f := strings.Fields(out); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return ""
}

// Shell runs a script in dir as the agent's Shell tool would.
func Shell(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// RunPrintedPushes runs, in r's work tree, the push command that a push
// refused with out and err printed, as printed, and the next one while
// each is refused again (three at most); the test fails when one fails for
// another reason. Nothing is run when err is nil.
func RunPrintedPushes(t *testing.T, r *SessionRepo, out string, err error) {
	t.Helper()
	for i := 0; err != nil; i++ {
		if i == 3 {
			t.Fatalf("still refused after %d printed commands:\n%s", i, out)
		}
		printed := PrintedPush(t, out)
		cmd := exec.Command("sh", "-c", printed)
		cmd.Dir = r.Dir
		cmd.Env = append(gittest.Env(t.TempDir()), r.Env...)
		o, cerr := cmd.CombinedOutput()
		out, err = string(o), cerr
		t.Logf("%s: %v\n%s", printed, err, out)
		if err != nil && !strings.Contains(out, "not pushing ") {
			t.Fatalf("%s: %v\n%s", printed, err, out)
		}
	}
}

// PrintedPush returns the `git push` command a refusal printed.
func PrintedPush(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "git push ") {
			return l
		}
	}
	t.Fatalf("no git push command printed:\n%s", out)
	return ""
}
