package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/agent"
)

func TestPlanResponse(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200)
	tests := []struct {
		name     string
		raw      string
		mcp      bool
		wantText string // "" = no plan
		wantOut  string // JSON of the replacement with page "P"
	}{
		{"small string", `"short"`, false, "", ""},
		{"string", `"` + big + `"`, false, big, `"P"`},
		{"bash stdout", `{"stdout":"` + big + `","stderr":"e","interrupted":false,"isImage":false}`, false, big,
			`{"interrupted":false,"isImage":false,"stderr":"e","stdout":"P"}`},
		{"nested read", `{"type":"text","file":{"filePath":"/a","content":"` + big + `","numLines":3}}`, false, big,
			`{"file":{"content":"P","filePath":"/a","numLines":3},"type":"text"}`},
		{"string array", `{"mode":"files_with_matches","filenames":["` + big[:100] + `","` + big[:100] + `"],"numFiles":2}`, false,
			big[:100] + "\n" + big[:100], `{"filenames":["P"],"mode":"files_with_matches","numFiles":2}`},
		{"fields each small", `{"a":"` + big[:90] + `","b":"` + big[:90] + `"}`, false, "", ""},
		{"mcp blocks", `[{"type":"text","text":"` + big[:90] + `"},{"type":"text","text":"` + big[:90] + `"}]`, true,
			big[:90] + "\n" + big[:90], `[{"text":"P","type":"text"}]`},
		{"not json", `{`, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := planResponse([]byte(tt.raw), 150, tt.mcp)
			if tt.wantText == "" {
				if p != nil {
					t.Fatalf("plan %q, want none", p.text)
				}
				return
			}
			if p == nil || p.text != tt.wantText {
				t.Fatalf("plan = %+v, want text %q", p, tt.wantText)
			}
			b, _ := json.Marshal(p.replace("P"))
			if string(b) != tt.wantOut {
				t.Errorf("replacement %s, want %s", b, tt.wantOut)
			}
		})
	}
}

// TestPlanHideAnswer checks the answer for each Claude Code version the
// transcript records: the field the version reads, or the note.
func TestPlanHideAnswer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transcript := func(name, version string) string {
		p := filepath.Join(dir, name)
		content := `{"type":"user"}` + "\n"
		if version != "" {
			content = `{"type":"user","version":"` + version + `"}` + "\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	resp := `{"stdout":"` + strings.Repeat("x", 200) + `","stderr":""}`
	for _, tt := range []struct {
		name, version, tool, want string
	}{
		{"current", "2.1.121", "Bash", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stderr":"","stdout":"P"}}}`},
		{"old mcp", "2.1.120", "mcp__x__y", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"stderr":"","stdout":"P"}}}`},
		{"old", "2.1.120", "Bash", `{"hookSpecificOutput":{"additionalContext":"N This Claude Code version (2.1.120) cannot replace tool output, ` +
			`so the full output above is unchanged; prefer the hide tools when you need it again.","hookEventName":"PostToolUse"}}`},
		{"unknown", "", "Bash", `{"hookSpecificOutput":{"additionalContext":"N","hookEventName":"PostToolUse","updatedToolOutput":{"stderr":"","stdout":"P"}}}`},
	} {
		in := &agent.HookInput{ToolName: tt.tool, ToolResponse: []byte(resp), SessionRef: transcript(tt.name, tt.version)}
		plan, ok := New().PlanHide(in, 150)
		if !ok {
			t.Fatalf("%s: no plan", tt.name)
		}
		b, _ := json.Marshal(plan.Answer("P", "N"))
		if string(b) != tt.want {
			t.Errorf("%s: answer\n%s\nwant\n%s", tt.name, b, tt.want)
		}
	}
}

func TestTranscriptVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name, content string
		want          [3]int
		known         bool
	}{
		{"a", `{"version":"2.1.36"}` + "\n" + `{"version":"2.1.121"}` + "\n", [3]int{2, 1, 121}, true},
		{"b", `{"version": "1.0.95", "x":1}`, [3]int{1, 0, 95}, true},
		{"c", strings.Repeat("z", 70<<10) + `{"version":"2.2.0"}`, [3]int{2, 2, 0}, true},
		{"d", `{"type":"user"}`, [3]int{}, false},
	} {
		v, known := transcriptVersion(write(tt.name, tt.content))
		if v != tt.want || known != tt.known {
			t.Errorf("%s: %v %v, want %v %v", tt.name, v, known, tt.want, tt.known)
		}
	}
	if _, known := transcriptVersion(filepath.Join(dir, "missing")); known {
		t.Errorf("missing file known")
	}
	if !versionLess([3]int{2, 1, 120}, minUpdatedOutputVersion) || versionLess([3]int{2, 1, 121}, minUpdatedOutputVersion) ||
		versionLess([3]int{3, 0, 0}, minUpdatedOutputVersion) {
		t.Errorf("versionLess")
	}
}

func FuzzPlanResponse(f *testing.F) {
	f.Add([]byte(`{"stdout":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","stderr":""}`), true)
	f.Add([]byte(`[{"type":"text","text":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}]`), true)
	f.Add([]byte(`["a","b",["c"],{"d":null}]`), false)
	f.Fuzz(func(t *testing.T, raw []byte, mcp bool) {
		if p := planResponse(raw, 10, mcp); p != nil {
			if len(p.text) <= 10 {
				t.Fatalf("plan of %d bytes under threshold", len(p.text))
			}
			if _, err := json.Marshal(p.replace("P")); err != nil {
				t.Fatalf("replacement not encodable: %v", err)
			}
		}
	})
}
