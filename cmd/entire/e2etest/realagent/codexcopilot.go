package realagent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Client names of the clients on OpenAI's APIs.
const (
	Codex   = "codex"
	Copilot = "copilot"
)

// codexModel is a model slug Codex knows (its bundled model metadata):
// with it Codex offers apply_patch as a free-form tool.
const codexModel = "gpt-5.5"

// openAIVars are the environment of Codex CLI and Copilot CLI for srv:
// Codex's home and key, Copilot's offline bring-your-own-key mode.
func openAIVars(home string, srv *Server) []string {
	return []string{
		"CODEX_HOME=" + filepath.Join(home, ".codex"),
		"FAKE_OPENAI_KEY=sk-fake-for-the-scripted-server",
		"COPILOT_OFFLINE=true",
		"COPILOT_PROVIDER_BASE_URL=" + srv.URL() + "/v1",
		"COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_API_KEY=sk-fake-for-the-scripted-server",
		"COPILOT_MODEL=fake-model",
	}
}

// writeOpenAIHomes writes Codex's config.toml (the scripted server as its
// provider, the trusted folders as trusted projects) and Copilot's
// config.json (the trusted folders) under e.Home, keeping the folders
// trusted before.
func (e *Env) writeOpenAIHomes(t testing.TB, srvURL string, trusted []string) {
	t.Helper()
	e.trusted = append(e.trusted, trusted...)
	slices.Sort(e.trusted)
	e.trusted = slices.Compact(e.trusted)
	codex := filepath.Join(e.Home, ".codex")
	if err := os.MkdirAll(codex, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model = %q\nmodel_provider = \"fake\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n", codexModel)
	b.WriteString("check_for_update_on_startup = false\n\n[model_providers.fake]\nname = \"fake\"\n")
	fmt.Fprintf(&b, "base_url = %q\nenv_key = \"FAKE_OPENAI_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n", srvURL+"/v1")
	b.WriteString("[analytics]\nenabled = false\n\n[features]\nplugins = false\n")
	for _, d := range e.trusted {
		fmt.Fprintf(&b, "\n[projects.%q]\ntrust_level = \"trusted\"\n", d)
	}
	if err := os.WriteFile(filepath.Join(codex, "config.toml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	copilot := filepath.Join(e.Home, ".copilot")
	if err := os.MkdirAll(copilot, 0o755); err != nil {
		t.Fatal(err)
	}
	folders := append([]string{}, e.trusted...) // [] not null: Copilot refuses a null list
	cfg, _ := json.Marshal(map[string]any{"trusted_folders": folders})
	if err := os.WriteFile(filepath.Join(copilot, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeProfile writes a login profile that puts the directories of the
// program's PATH first, as a user's profile puts entire on PATH: Codex
// runs its shell commands in a login shell (bash -lc), whose PATH comes
// from /etc/profile and the user's profile, not from Codex's own
// environment.
func (e *Env) writeProfile(t testing.TB, path string) {
	t.Helper()
	p := "export PATH=" + shellQuote(path) + "\n"
	if err := os.WriteFile(filepath.Join(e.Home, ".profile"), []byte(p), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Untrust forgets every folder trusted so far, for Codex CLI and Copilot
// CLI: they then skip the project's hooks, silently.
func (e *Env) Untrust(t testing.TB) {
	t.Helper()
	e.trusted = nil
	e.writeOpenAIHomes(t, e.srvURL, nil)
}
