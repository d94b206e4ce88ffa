package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/entirecli/entire/gitrepo/gittest"
	"github.com/entirecli/entire/internal/realagent"
)

func TestExploreClaude(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	claude := realagent.Binary(t, realagent.ClaudeCode)
	dir := gittest.InitWithCommit(t)
	sub := realagent.Script{
		{Tools: []realagent.ToolCall{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(dir, "sub.txt"), "content": "sub\n"}}}, Usage: realagent.Usage{Input: 50, Output: 5}},
		{Text: "Subagent done.", Usage: realagent.Usage{Input: 60, Output: 6}},
	}
	main := realagent.Script{
		{Tools: []realagent.ToolCall{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(dir, "hello.txt"), "content": "hello\n"}}}, Usage: realagent.Usage{Input: 100, CacheRead: 10, CacheCreation: 7, Output: 11}},
		{Tools: []realagent.ToolCall{{Name: "Bash", Input: map[string]any{"command": "echo made > bash.txt", "description": "make bash.txt"}}}, Usage: realagent.Usage{Input: 101, Output: 12}},
		{Tools: []realagent.ToolCall{{Name: "TaskCreate", Input: map[string]any{"subject": "Do it", "description": "Do the thing", "activeForm": "Doing it"}}}, Usage: realagent.Usage{Input: 102, Output: 13}},
		{Tools: []realagent.ToolCall{{Name: "TaskUpdate", Input: map[string]any{"taskId": "1", "status": "completed"}}}, Usage: realagent.Usage{Input: 103, Output: 14}},
		{Tools: []realagent.ToolCall{{Name: "Agent", Input: map[string]any{"description": "Write sub", "prompt": "SCRIPT:sub write sub.txt", "subagent_type": "general-purpose"}}}, Usage: realagent.Usage{Input: 104, Output: 15}},
		{Text: "All done.", Usage: realagent.Usage{Input: 105, Output: 16}},
	}
	srv := realagent.NewServer(t, map[string]realagent.Script{"main": main, "sub": sub})
	env := realagent.NewEnv(t, srv, []string{filepath.Dir(entireBin)}, dir)
	out, errOut, code := runEntire(t, dir, nil, "", "enable", "--agent", "claude-code")
	t.Logf("enable %d %s %s", code, out, errOut)
	res := realagent.Run(t, env, dir, claude, "-p", "SCRIPT:main do it", "--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose", "--include-hook-events")
	t.Logf("exit %d in %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Elapsed, res.Stdout, res.Stderr)
	t.Logf("requests %+v", srv.Requests())
	t.Log(gittest.Git(t, dir, "status", "--short"))
	t.Log(gittest.Git(t, dir, "branch", "-a"))
	filepath.Walk(env.Home, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Log(p)
		}
		return nil
	})
	if os.Getenv("KEEP") != "" {
		exec_cp(t, env.Home, dir)
	}
}

func exec_cp(t *testing.T, home, dir string) {
	os.RemoveAll("/tmp/explore")
	os.MkdirAll("/tmp/explore", 0o755)
	gittest.GitErr("/", "-c", "x=y", "version")
	_ = os.Rename(home, "/tmp/explore/home")
	_ = os.Rename(dir, "/tmp/explore/repo")
}

func TestExploreGemini(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	gemini := realagent.Binary(t, realagent.GeminiCLI)
	dir := gittest.InitWithCommit(t)
	sub := realagent.Script{
		{Tools: []realagent.ToolCall{{Name: "write_file", Input: map[string]any{"file_path": filepath.Join(dir, "sub.txt"), "content": "sub\n"}}}, Usage: realagent.Usage{Input: 50, Output: 5}},
		{Tools: []realagent.ToolCall{{Name: "complete_task", Input: map[string]any{"result": map[string]any{"response": "Subagent wrote sub.txt"}}}}, Usage: realagent.Usage{Input: 60, Output: 6}},
	}
	main := realagent.Script{
		{Tools: []realagent.ToolCall{{Name: "write_file", Input: map[string]any{"file_path": filepath.Join(dir, "hello.txt"), "content": "hello\n"}}}, Usage: realagent.Usage{Input: 100, CacheRead: 10, Output: 11}},
		{Tools: []realagent.ToolCall{{Name: "run_shell_command", Input: map[string]any{"command": "echo made > bash.txt", "description": "make bash.txt"}}}, Usage: realagent.Usage{Input: 101, Output: 12}},
		{Tools: []realagent.ToolCall{{Name: "invoke_agent", Input: map[string]any{"agent_name": "generalist", "prompt": "SCRIPT:gsub write sub.txt"}}}, Usage: realagent.Usage{Input: 104, Output: 15}},
		{Text: "All done.", Usage: realagent.Usage{Input: 105, Output: 16}},
	}
	srv := realagent.NewServer(t, map[string]realagent.Script{"main": main, "gsub": sub})
	env := realagent.NewEnv(t, srv, []string{filepath.Dir(entireBin)}, dir)
	out, errOut, code := runEntire(t, dir, nil, "", "enable", "--agent", "gemini")
	t.Logf("enable %d %s %s", code, out, errOut)
	res := realagent.Run(t, env, dir, gemini, "-p", "SCRIPT:main do it", "--yolo", "--output-format", "stream-json", "--debug")
	t.Logf("exit %d in %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Elapsed, res.Stdout, res.Stderr)
	t.Logf("requests %+v", srv.Requests())
	t.Log(gittest.Git(t, dir, "status", "--short"))
	t.Log(gittest.Git(t, dir, "branch", "-a"))
	filepath.Walk(env.Home, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Log(p)
		}
		return nil
	})
	if os.Getenv("KEEP") != "" {
		exec_cp(t, env.Home, dir)
	}
}
