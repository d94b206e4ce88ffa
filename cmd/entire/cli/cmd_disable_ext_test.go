package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entirecli/entire/cmd/entire/cli"
	"github.com/entirecli/entire/cmd/entire/e2etest"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

func TestDisableSoftThenStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		file      string // settings file written
		wantFile  string
		wantState string // status --detailed after disable
	}{
		{
			name: "local", args: []string{"disable"}, file: "settings.local.json",
			wantFile: "{\n  \"strategy\": \"manual-commit\",\n  \"enabled\": false,\n" + refsBlock + "}\n",
			wantState: "Disabled (manual-commit)\nProject, enabled (manual-commit)\nLocal, disabled (manual-commit)\n" +
				"Checkpoints: kept local (remote 'origin' does not exist)\n",
		},
		{
			name: "project", args: []string{"disable", "--project"}, file: "settings.json",
			wantFile: "{\n  \"strategy\": \"manual-commit\",\n  \"enabled\": false,\n" + refsBlock + "}\n",
			wantState: "Disabled (manual-commit)\nProject, disabled (manual-commit)\n" +
				"Checkpoints: kept local (remote 'origin' does not exist)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable"); code != 0 {
				t.Fatalf("enable: %d %s", code, errOut)
			}
			out, errOut, code := e2etest.RunEntire(t, dir, nil, "", tt.args...)
			if code != 0 || out != "Entire is now disabled.\n" || errOut != "" {
				t.Fatalf("disable: exit %d stdout %q stderr %q", code, out, errOut)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, ".entire", tt.file)); string(got) != tt.wantFile {
				t.Errorf("%s = %q, want %q", tt.file, got, tt.wantFile)
			}
			out, _, code = e2etest.RunEntire(t, dir, nil, "", "status", "--detailed")
			if code != 0 || out != tt.wantState {
				t.Errorf("status: exit %d\n%q\nwant\n%q", code, out, tt.wantState)
			}
			e2etest.AssertGitHooks(t, dir, true) // a soft disable keeps the hooks

			// The disabled guard of rewind, resume and explain.
			f, fout, _ := cli.TestFactory(dir, nil)
			if ok, err := cli.CheckEnabled(f); ok || err != nil || fout.String() != cli.DisabledMessage+"\n" {
				t.Errorf("checkEnabled = %v %v, printed %q", ok, err, fout)
			}

			// Enabling again turns the override back on.
			if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable"); code != 0 {
				t.Fatalf("enable: %d %s", code, errOut)
			}
			out, _, _ = e2etest.RunEntire(t, dir, nil, "", "status")
			if !strings.HasPrefix(out, "Enabled (manual-commit)\n") {
				t.Errorf("status after enable: %q", out)
			}
			f, fout, _ = cli.TestFactory(dir, nil)
			if ok, err := cli.CheckEnabled(f); !ok || err != nil || fout.Len() != 0 {
				t.Errorf("checkEnabled after enable = %v %v, printed %q", ok, err, fout)
			}
		})
	}
}

func TestUninstallConfirmation(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer    string
		wantOut   string
		installed bool
	}{
		{"n\n", "Uninstall cancelled.\n", true},
		{"y\n", "Entire CLI uninstalled successfully.\n", false},
	} {
		t.Run(strings.TrimSpace(tt.answer), func(t *testing.T) {
			t.Parallel()
			dir := gittest.InitWithCommit(t)
			if _, errOut, code := e2etest.RunEntire(t, dir, nil, "", "enable"); code != 0 {
				t.Fatalf("enable: %d %s", code, errOut)
			}
			f, out, errOut := cli.TestFactory(dir, map[string]string{"ACCESSIBLE": "1"})
			f.IO.In = strings.NewReader(tt.answer)
			f.IO.SetStdinTTY(true)
			f.IO.SetStderrTTY(true)
			if code := cli.Run([]string{"disable", "--uninstall"}, f); code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if out.String() != tt.wantOut || !strings.Contains(errOut.String(), "Are you sure you want to uninstall Entire?") {
				t.Errorf("stdout %q stderr %q", out, errOut)
			}
			e2etest.AssertGitHooks(t, dir, tt.installed)
		})
	}
}

// newRewoundRepo is a session repository with one rewind done, hence one
// undo point, and a hide and a note on their branches.
func newRewoundRepo(t *testing.T) *e2etest.SessionRepo {
	t.Helper()
	r := e2etest.NewSessionRepo(t)
	r.PlayTurn("first", map[string]string{"a.txt": "a\n"})
	r.PlayTurn("second", map[string]string{"a.txt": "b\n"})
	if _, errOut, code := r.Entire("note", "save", "plan", "keep it small"); code != 0 {
		t.Fatalf("note save: %s", errOut)
	}
	r.Hook("post-tool", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input": map[string]any{"command": "make"}, "tool_response": map[string]any{"stdout": e2etest.BigOutput(), "stderr": "", "interrupted": false}})
	pts := r.Points()
	if len(pts) < 2 {
		t.Fatalf("rewind points: %+v", pts)
	}
	if _, errOut, code := r.Entire("rewind", "--to", pts[len(pts)-1].ID); code != 0 {
		t.Fatalf("rewind: %s", errOut)
	}
	if n := undoRefs(t, r.Dir); n != 1 {
		t.Fatalf("%d undo points after a rewind", n)
	}
	return r
}

// undoRefs counts the undo points of a repository: the point
// directories of its undo store.
func undoRefs(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".git", "entire-undo"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// Uninstalling says what it keeps (the metadata, hides and notes
// branches, the local undo data) and deletes the undo data only with consent: the
// answer to its question at a terminal, or --delete-undo.
func TestUninstallUndoData(t *testing.T) {
	t.Parallel()
	const (
		keeps = "This keeps:\n" +
			"  - the entire/checkpoints/v1 branch (committed checkpoints)\n" +
			"  - the entire/hides/v1 branch (hides)\n" +
			"  - the entire/notes/v1 branch (notes)\n" +
			"  - 1 undo point under .git/entire-undo (local, never pushed, with unredacted transcripts)\n"
		kept    = "Kept 1 undo point under .git/entire-undo (unredacted transcripts); 'entire disable --uninstall --delete-undo' deletes the undo data.\n"
		deleted = "Deleted 1 undo point under .git/entire-undo.\n"
		asked   = "Also delete the local undo data (1 undo point under .git/entire-undo, unredacted)? (Yes, delete it: y, No, keep it: n) [y/N] "
	)
	for _, tt := range []struct {
		name    string
		args    []string
		answers string // "" runs the binary without a terminal
		wantErr []string
		undo    int
	}{
		{"force keeps", []string{"--force"}, "", []string{"Kept:\n  - the entire/checkpoints/v1 branch (committed checkpoints)\n  - the entire/hides/v1 branch (hides)\n  - the entire/notes/v1 branch (notes)\n", kept}, 1},
		{"force with --delete-undo", []string{"--force", "--delete-undo"}, "", []string{deleted}, 0},
		{"asked, yes", nil, "y\ny\n", []string{keeps, asked, deleted}, 0},
		{"asked, no", nil, "y\nn\n", []string{keeps, asked, kept}, 1},
		{"asked, default", nil, "y\n\n", []string{asked, kept}, 1},
		{"--delete-undo is not asked", []string{"--delete-undo"}, "y\n", []string{keeps, deleted}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRewoundRepo(t)
			args := append([]string{"disable", "--uninstall"}, tt.args...)
			var out, errOut string
			if tt.answers == "" {
				var code int
				out, errOut, code = r.Entire(args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
			} else {
				f, o, e := cli.TestFactory(r.Dir, map[string]string{"ACCESSIBLE": "1"})
				f.IO.In = strings.NewReader(tt.answers)
				f.IO.SetStdinTTY(true)
				f.IO.SetStderrTTY(true)
				if code := cli.Run(args, f); code != cli.ExitOK {
					t.Fatalf("exit %d: %s", code, e)
				}
				out, errOut = o.String(), e.String()
			}
			if out != "Entire CLI uninstalled successfully.\n" {
				t.Errorf("stdout %q", out)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if tt.answers == "y\ny\n" && strings.Contains(errOut, kept) || tt.undo == 1 && strings.Contains(errOut, "Deleted") {
				t.Errorf("stderr contradicts the answer:\n%s", errOut)
			}
			if n := undoRefs(t, r.Dir); n != tt.undo {
				t.Errorf("%d undo points left, want %d", n, tt.undo)
			}
			if gittest.Git(t, r.Dir, "rev-parse", "--verify", "-q", "entire/notes/v1") == "" {
				t.Error("the notes branch is gone")
			}
			if tt.undo == 0 {
				return
			}
			// Undo data left behind: uninstalling again deletes it on request.
			out, errOut, code := r.Entire("disable", "--uninstall", "--delete-undo")
			if code != 0 || out != "Entire is not installed in this repository.\n" || !strings.Contains(errOut, deleted) || undoRefs(t, r.Dir) != 0 {
				t.Errorf("uninstall --delete-undo after uninstall: exit %d stdout %q stderr %q, %d undo points", code, out, errOut, undoRefs(t, r.Dir))
			}
		})
	}
}

// refsBlock is the checkpoints block a first enable writes (SPEC 10.1), as
// the settings files hold it.
const refsBlock = "  \"checkpoints\": {\n    \"primary\": {\n      \"type\": \"git-refs\"\n    }\n  }\n"
