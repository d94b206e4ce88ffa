package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlanClaude(t *testing.T) {
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
			p := planClaude([]byte(tt.raw), 150, tt.mcp)
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

func TestPlanGemini(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("y", 300)
	for _, tt := range []struct {
		raw, want string
	}{
		{`{"llmContent":"` + big + `","returnDisplay":"ok"}`, big},
		{`{"llmContent":[{"text":"` + big + `"},{"text":"z"}],"returnDisplay":"ok"}`, big + "\nz"},
		{`{"llmContent":"small","returnDisplay":"` + big + `"}`, ""},
		{`{"error":"boom"}`, ""},
		{`[1,2]`, ""},
	} {
		p := planGemini([]byte(tt.raw), 200)
		switch {
		case tt.want == "" && p != nil:
			t.Errorf("%s: plan %q, want none", tt.raw[:20], p.text)
		case tt.want != "" && (p == nil || p.text != tt.want):
			t.Errorf("%s: plan %+v", tt.raw[:20], p)
		case p != nil && p.replace("P") != "P":
			t.Errorf("gemini replacement is not the page")
		}
	}
}

func TestClaudeVersion(t *testing.T) {
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
		v, known := claudeVersion(write(tt.name, tt.content))
		if v != tt.want || known != tt.known {
			t.Errorf("%s: %v %v, want %v %v", tt.name, v, known, tt.want, tt.known)
		}
	}
	if _, known := claudeVersion(filepath.Join(dir, "missing")); known {
		t.Errorf("missing file known")
	}
	if !versionLess([3]int{2, 1, 120}, minUpdatedOutputVersion) || versionLess([3]int{2, 1, 121}, minUpdatedOutputVersion) ||
		versionLess([3]int{3, 0, 0}, minUpdatedOutputVersion) {
		t.Errorf("versionLess")
	}
}

func TestIsOwnTool(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"mcp__entire__hide_next": true, "mcp_entire_hide_jump": true, "entire__note_list": true,
		"Bash": false, "mcp__other__x": false} {
		if isOwnTool(name) != want {
			t.Errorf("isOwnTool(%q) != %v", name, want)
		}
	}
}

func FuzzPlanClaude(f *testing.F) {
	f.Add([]byte(`{"stdout":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","stderr":""}`), true)
	f.Add([]byte(`[{"type":"text","text":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}]`), true)
	f.Add([]byte(`["a","b",["c"],{"d":null}]`), false)
	f.Fuzz(func(t *testing.T, raw []byte, mcp bool) {
		if p := planClaude(raw, 10, mcp); p != nil {
			if len(p.text) <= 10 {
				t.Fatalf("plan of %d bytes under threshold", len(p.text))
			}
			if _, err := json.Marshal(p.replace("P")); err != nil {
				t.Fatalf("replacement not encodable: %v", err)
			}
		}
		if p := planGemini(raw, 10); p != nil && len(p.text) <= 10 {
			t.Fatalf("gemini plan under threshold")
		}
	})
}
