package claudecode

import "testing"

func TestToolDetail(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, input, want string }{
		{"Bash", `{"command":"ls","description":"List files"}`, "List files"},
		{"Bash", `{"command":"ls"}`, "ls"},
		{"Edit", `{"file_path":"/a.go"}`, "/a.go"},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb"}`, "/n.ipynb"},
		{"Grep", `{"pattern":"foo","path":"/x"}`, "foo"},
		{"Skill", `{"skill":"brainstorming"}`, "brainstorming"},
		{"Read", `{"file_path":"/r.go","description":"ignored"}`, "/r.go"},
		{"WebFetch", `{"url":"https://x","prompt":"p"}`, "https://x"},
		{"Other", `"string input"`, ""},
		{"Other", ``, ""},
	}
	for _, tt := range tests {
		if got := ToolDetail(tt.name, []byte(tt.input)); got != tt.want {
			t.Errorf("ToolDetail(%s, %s) = %q, want %q", tt.name, tt.input, got, tt.want)
		}
	}
}
