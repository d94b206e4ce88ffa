package agenttest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// HookPayload is one hook payload recorded from a real client.
type HookPayload struct {
	// Name is the file name, e.g. "gemini-after-agent.json".
	Name string
	// Verb is the `entire hooks <agent>` verb the payload was sent to,
	// taken from the file name ("after-agent").
	Verb string
	// Data is the payload, as the client wrote it on the hook's stdin.
	Data []byte
}

// HookPayloads reads the payloads in shared/fixtures/hook-payloads/<client>
// (e.g. "gemini-cli-0.61.0"), found in the nearest ancestor of the working
// directory that has it (the repository's ../shared), sorted by name. Each
// payload file is named <prefix><verb>.json; the settings files beside them
// (settings-*.json) and files that are not JSON are left out, and any other
// file name fails the test. It skips the test when the directory is absent.
func HookPayloads(t testing.TB, client, prefix string) []HookPayload {
	t.Helper()
	dir, ok := findShared(filepath.Join("fixtures", "hook-payloads", client))
	if !ok {
		t.Skip("../shared/fixtures/hook-payloads not found: no shared/fixtures/hook-payloads/" + client + " above the working directory")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []HookPayload
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || filepath.Ext(name) != ".json" || strings.HasPrefix(name, "settings-") {
			continue
		}
		verb, ok := strings.CutPrefix(strings.TrimSuffix(name, ".json"), prefix)
		if !ok || verb == "" {
			t.Errorf("%s: not a payload file name (<%s><verb>.json)", name, prefix)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, HookPayload{Name: name, Verb: verb, Data: data})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HookSettingsFile returns the path of the agent settings file `entire
// enable` wrote in the recorded run of client
// (shared/fixtures/hook-payloads/<client>/settings-written-by-enable.json).
// It skips the test when the file is absent.
func HookSettingsFile(t testing.TB, client string) string {
	t.Helper()
	dir, ok := findShared(filepath.Join("fixtures", "hook-payloads", client))
	path := filepath.Join(dir, "settings-written-by-enable.json")
	if ok {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	t.Skip("../shared/fixtures/hook-payloads not found: no shared/fixtures/hook-payloads/" + client + "/settings-written-by-enable.json above the working directory")
	return ""
}

// HookPayloadFile returns one recorded payload, shared/fixtures/
// hook-payloads/<client>/<name> (e.g. "claude-code-2.1.197",
// "claude-code-post-todo.json"). It skips the test when the file is absent.
func HookPayloadFile(t testing.TB, client, name string) []byte {
	t.Helper()
	dir, ok := findShared(filepath.Join("fixtures", "hook-payloads", client))
	if !ok {
		t.Skip("../shared/fixtures/hook-payloads not found: no shared/fixtures/hook-payloads/" + client + " above the working directory")
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("hook payload %s/%s: %v", client, name, err)
	}
	return b
}
