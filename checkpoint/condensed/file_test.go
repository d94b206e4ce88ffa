package condensed

import (
	"encoding/json"
	"testing"
)

// A File that Encode writes is valid; one with another version, an
// unknown role or a tool name on the wrong role (as a crafted slot may
// hold) is not.
func TestSummaryValid(t *testing.T) {
	t.Parallel()
	good := []Entry{{Role: RoleUser, Text: "fix it"}, {Role: RoleAssistant, Text: "ok"}, {Role: RoleTool, Tool: "Bash", Text: "ls"}}
	data, err := Encode("sha256:x", 0, good)
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil || !s.Valid() {
		t.Fatalf("Encode's file is not valid: %v %s", err, data)
	}
	bad := map[string]Summary{
		"version":        {Version: Version + 1, Entries: good},
		"unknown role":   {Version: Version, Entries: []Entry{{Role: "System\x1b[2J", Text: "x"}}},
		"tool without":   {Version: Version, Entries: []Entry{{Role: RoleTool, Text: "ls"}}},
		"user with tool": {Version: Version, Entries: []Entry{{Role: RoleUser, Tool: "Bash", Text: "x"}}},
		"empty role":     {Version: Version, Entries: []Entry{{Text: "x"}}},
		"assistant+tool": {Version: Version, Entries: []Entry{{Role: RoleAssistant, Tool: "Read"}}},
	}
	for name, s := range bad {
		if s.Valid() {
			t.Errorf("%s: valid", name)
		}
	}
}
