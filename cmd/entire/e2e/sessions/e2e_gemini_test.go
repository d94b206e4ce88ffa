package sessions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// A Gemini CLI session end to end, for both transcript containers: shadow
// steps per turn, then one checkpoint at the user's commit.
func TestE2EGeminiSession(t *testing.T) {
	t.Parallel()
	for _, jsonl := range []bool{false, true} {
		name := "single JSON"
		if jsonl {
			name = "JSONL"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := e2etest.NewSessionRepo(t)
			g := e2etest.NewGeminiSession(r, "7f3c2a10-gemini-session", jsonl)
			out, _, code := g.Hook("session-start", "SessionStart", map[string]any{"source": "startup"})
			if code != 0 || !strings.Contains(out, "Powered by Entire") {
				t.Fatalf("session-start: %d %q", code, out)
			}
			g.PlayTurn("Create the parser", map[string]string{"parser.go": "package parser\n", "lexer.go": "package parser\n"})
			g.PlayTurn("Add parser tests", map[string]string{"parser_test.go": "package parser\n"})

			shadows := e2etest.ShadowBranches(t, r.Dir)
			if len(shadows) != 1 {
				t.Fatalf("shadow branches %v", shadows)
			}
			if log := gittest.Git(t, r.Dir, "log", "--format=%s", shadows[0]); log != "Add parser tests\nCreate the parser" {
				t.Errorf("shadow log:\n%s", log)
			}
			live, _ := os.ReadFile(g.Path)
			stored := gittest.Git(t, r.Dir, "show", shadows[0]+":.entire/metadata/"+g.ID+"/full.jsonl")
			if stored != strings.TrimSuffix(string(live), "\n") {
				t.Errorf("shadow transcript differs from the live one:\n%s", stored)
			}
			st := e2etest.SessionState(t, r.Dir, g.ID)
			if st["agent_type"] != "Gemini CLI" || st["checkpoint_count"] != float64(2) {
				t.Errorf("state: agent %v count %v", st["agent_type"], st["checkpoint_count"])
			}
			if ft := e2etest.AnyStrings(st["files_touched"]); !slices.Equal(ft, []string{"lexer.go", "parser.go", "parser_test.go"}) {
				t.Errorf("files_touched %v", ft)
			}

			r.MustGit("add", "parser.go", "lexer.go", "parser_test.go")
			r.MustGit("commit", "-q", "-m", "Add parser")
			id := e2etest.CheckpointAt(t, r.Dir, "HEAD")
			if id == "" {
				t.Fatal("commit not linked")
			}
			m := e2etest.ShowJSON(t, r.Dir, e2etest.CpPath(id, "0/metadata.json"))
			if m["agent"] != "Gemini CLI" || m["session_id"] != g.ID || m["checkpoints_count"] != float64(2) {
				t.Errorf("session metadata %v", m)
			}
			if ft := e2etest.AnyStrings(m["files_touched"]); !slices.Equal(ft, []string{"lexer.go", "parser.go", "parser_test.go"}) {
				t.Errorf("checkpoint files_touched %v", ft)
			}
			if tu, _ := m["token_usage"].(map[string]any); tu["input_tokens"] != float64(200) || tu["output_tokens"] != float64(40) {
				t.Errorf("token_usage %v", m["token_usage"])
			}
			if p := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/prompt.txt")); p != "Create the parser\n\n---\n\nAdd parser tests" {
				t.Errorf("prompt.txt %q", p)
			}
			if tr := gittest.Git(t, r.Dir, "show", e2etest.CpPath(id, "0/full.jsonl")); tr != strings.TrimSuffix(string(live), "\n") {
				t.Errorf("checkpoint transcript differs from the live one")
			}
			if msg := gittest.Git(t, r.Dir, "log", "-1", "--format=%B", "entire/checkpoints/v1"); !strings.Contains(msg, "Entire-Agent: Gemini CLI") {
				t.Errorf("metadata commit:\n%s", msg)
			}
			g.MustHook("session-end", "SessionEnd", map[string]any{"reason": "exit"})
			if st := e2etest.SessionState(t, r.Dir, g.ID); st["phase"] != "ended" || st["ended_at"] == nil {
				t.Errorf("after session-end: phase %v ended_at %v", st["phase"], st["ended_at"])
			}
			e2etest.AssertStoreClean(t, r.Dir, id)
		})
	}
}

// The verbs no longer installed (SPEC 2.2's hooks that only logged) are
// still called by older installs: they answer "{}" and exit 0 at once,
// whatever stdin holds, without a log file; a kept verb given the same
// input does log it.
func TestE2EGeminiNoOpVerbs(t *testing.T) {
	t.Parallel()
	r := e2etest.NewSessionRepo(t)
	big := `{"session_id":"s","hook_event_name":"BeforeModel","llm_request":{"messages":[{"role":"user","content":"` +
		strings.Repeat("x", 4<<20) + `"}]}}`
	inputs := map[string]string{"malformed": `{"session_id": "s", "llm_request": `, "empty": "", "not JSON": "garbage", "4 MiB": big}
	for _, verb := range []string{"before-model", "after-model", "before-tool-selection", "pre-compress", "notification"} {
		for name, stdin := range inputs {
			start := time.Now()
			out, errOut, code := e2etest.RunEntire(t, r.Dir, r.Env, stdin, "hooks", "gemini", verb)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("%s, %s input: took %v", verb, name, d)
			}
			if code != 0 || out != "{}\n" || errOut != "" {
				t.Errorf("%s, %s input: exit %d stdout %q stderr %q; want 0, {}", verb, name, code, out, errOut)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".entire", "logs")); !os.IsNotExist(err) {
		t.Errorf("no-op verbs wrote .entire/logs (%v):\n%s", err, e2etest.LogText(r.Dir))
	}
	out, _, code := e2etest.RunEntire(t, r.Dir, r.Env, inputs["malformed"], "hooks", "gemini", "before-tool")
	if code != 0 || !strings.Contains(out, `"systemMessage":"Entire: `) || !strings.Contains(e2etest.LogText(r.Dir), `"msg":"bad hook input"`) {
		t.Errorf("before-tool with malformed input: exit %d stdout %q log %q", code, out, e2etest.LogText(r.Dir))
	}
}
