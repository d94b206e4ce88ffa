// Package externaltest is a fake external agent for the tests: Main is a
// program that speaks Entire's external-agent protocol version 1 as
// entire-agent-<name> (its name is the one it is started as), for an agent
// "Acme" whose hooks live in .acme/hooks.json, whose sessions are JSON
// lines under $ACME_HOME/sessions (default ~/.acme), and whose positions
// count lines, as the published external agents count them.
//
// ACME_MISBEHAVE=<subcommand>:<mode>[,...] makes a subcommand misbehave,
// for the hostile tests: hang (sleeps until killed), crash (exits 2 with a
// message), garbage (answers bytes that are no JSON), escape (parse-hook
// and read-session answer a session_ref outside the session directory),
// flood (answers 8 MiB). ACME_NO_TOKENS=1 drops the token_calculator
// capability; ACME_NO_ANALYZER=1 drops transcript_analyzer.
//
// A transcript line is {"type":"user"|"assistant","message":{"content":
// "<text>"},"files":[...],"usage":{"input":N,"output":N}}. A hook payload
// is {"session":"<id>","prompt":"<text>"}; hooks session-start, prompt,
// stop, session-end and tool (tool calls are no events: null).
package externaltest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Prefix starts the program's name.
const Prefix = "entire-agent-"

// HookNames are the fake agent's hooks, in installation order.
var HookNames = []string{"session-start", "prompt", "stop", "session-end", "tool"}

// MainProcess runs Main with the process's arguments and streams.
func MainProcess() int {
	return Main(os.Args, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
}

// fake is one run of the program.
type fake struct {
	name   string
	args   map[string]string
	stdin  io.Reader
	out    io.Writer
	getenv func(string) string
}

// Main runs the program: args[0] is its name (entire-agent-<name>),
// args[1] the subcommand.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "usage: entire-agent-<name> <subcommand>")
		return 2
	}
	f := &fake{name: strings.TrimPrefix(filepath.Base(args[0]), Prefix), args: flags(args[2:]), stdin: stdin, out: stdout, getenv: getenv}
	sub := args[1]
	switch f.misbehave(sub) {
	case "hang":
		time.Sleep(time.Hour)
	case "crash":
		fmt.Fprintln(stderr, "acme: simulated crash in", sub)
		return 2
	case "garbage":
		fmt.Fprint(stdout, "\x1b[31mnot json {{{")
		return 0
	case "flood":
		stdout.Write(bytes.Repeat([]byte("x"), 8<<20))
		return 0
	}
	if err := f.run(sub); err != nil {
		fmt.Fprintln(stderr, "acme:", err)
		return 1
	}
	return 0
}

// flags reads --key value pairs and bare --flags.
func flags(args []string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(args); i++ {
		k := strings.TrimPrefix(args[i], "--")
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			m[k] = args[i+1]
			i++
		} else {
			m[k] = "true"
		}
	}
	return m
}

func (f *fake) misbehave(sub string) string {
	for _, spec := range strings.Split(f.getenv("ACME_MISBEHAVE"), ",") {
		if s, mode, ok := strings.Cut(spec, ":"); ok && s == sub {
			return mode
		}
	}
	return ""
}

func (f *fake) reply(v any) error { return json.NewEncoder(f.out).Encode(v) }

func (f *fake) repo() string { return f.getenv("ENTIRE_REPO_ROOT") }

func (f *fake) sessionDir() string {
	if d := f.getenv("ACME_SESSION_DIR"); d != "" {
		return d
	}
	home := f.getenv("ACME_HOME")
	if home == "" {
		home = filepath.Join(f.getenv("HOME"), ".acme")
	}
	return filepath.Join(home, "sessions")
}

func (f *fake) hooksFile() string { return filepath.Join(f.repo(), ".acme", "hooks.json") }

func (f *fake) command(hook string) string { return "entire hooks " + f.name + " " + hook }

func (f *fake) run(sub string) error {
	switch sub {
	case "info":
		return f.reply(map[string]any{
			"protocol_version": 1, "name": f.name, "type": "Acme Agent", "description": "Acme - a fake agent for the tests",
			"protected_dirs": []string{".acme"}, "hook_names": HookNames,
			"capabilities": map[string]bool{"hooks": true, "transcript_analyzer": f.getenv("ACME_NO_ANALYZER") == "",
				"token_calculator": f.getenv("ACME_NO_TOKENS") == ""},
		})
	case "detect":
		_, err := os.Stat(filepath.Join(f.repo(), ".acme"))
		return f.reply(map[string]bool{"present": err == nil})
	case "get-session-id":
		var in struct {
			SessionID string `json:"session_id"`
		}
		if err := json.NewDecoder(f.stdin).Decode(&in); err != nil {
			return err
		}
		return f.reply(map[string]string{"session_id": in.SessionID})
	case "get-session-dir":
		return f.reply(map[string]string{"session_dir": f.sessionDir()})
	case "resolve-session-file":
		return f.reply(map[string]string{"session_file": filepath.Join(f.args["session-dir"], f.args["session-id"]+".jsonl")})
	case "read-session":
		var in struct {
			SessionID  string `json:"session_id"`
			SessionRef string `json:"session_ref"`
		}
		if err := json.NewDecoder(f.stdin).Decode(&in); err != nil {
			return err
		}
		ref := in.SessionRef
		if f.misbehave(sub) == "escape" {
			ref = filepath.Join(f.sessionDir(), "..", "..", "etc", "passwd")
		}
		data, _ := os.ReadFile(in.SessionRef)
		return f.reply(map[string]any{"session_id": in.SessionID, "agent_name": f.name, "repo_path": f.repo(), "session_ref": ref,
			"native_data": data, "modified_files": filesIn(data, 0), "new_files": []string{}, "deleted_files": []string{}})
	case "write-session":
		var in struct {
			SessionRef string `json:"session_ref"`
			NativeData []byte `json:"native_data"`
		}
		if err := json.NewDecoder(f.stdin).Decode(&in); err != nil {
			return err
		}
		if in.SessionRef == "" {
			return errors.New("write-session: no session_ref")
		}
		if err := os.MkdirAll(filepath.Dir(in.SessionRef), 0o750); err != nil {
			return err
		}
		return os.WriteFile(in.SessionRef, in.NativeData, 0o600)
	case "read-transcript":
		data, err := os.ReadFile(f.args["session-ref"])
		if err != nil {
			return err
		}
		_, err = f.out.Write(data)
		return err
	case "chunk-transcript":
		n, err := strconv.Atoi(f.args["max-size"])
		if err != nil || n <= 0 {
			return fmt.Errorf("chunk-transcript: bad --max-size %q", f.args["max-size"])
		}
		data, err := io.ReadAll(f.stdin)
		if err != nil {
			return err
		}
		chunks := [][]byte{}
		for len(data) > n {
			chunks, data = append(chunks, data[:n]), data[n:]
		}
		return f.reply(map[string]any{"chunks": append(chunks, data)})
	case "reassemble-transcript":
		var in struct {
			Chunks [][]byte `json:"chunks"`
		}
		if err := json.NewDecoder(f.stdin).Decode(&in); err != nil {
			return err
		}
		_, err := f.out.Write(bytes.Join(in.Chunks, nil))
		return err
	case "format-resume-command":
		return f.reply(map[string]string{"command": "acme --resume " + f.args["session-id"]})
	case "parse-hook":
		return f.parseHook()
	case "install-hooks":
		return f.install()
	case "uninstall-hooks":
		if err := os.Remove(f.hooksFile()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	case "are-hooks-installed":
		b, err := os.ReadFile(f.hooksFile())
		if errors.Is(err, os.ErrNotExist) {
			return f.reply(map[string]bool{"installed": false})
		}
		if err != nil {
			return err
		}
		return f.reply(map[string]bool{"installed": bytes.Contains(b, []byte(f.command("stop")))})
	case "get-transcript-position":
		data, _ := os.ReadFile(f.args["path"])
		return f.reply(map[string]int{"position": len(lines(data))})
	case "extract-modified-files":
		data, _ := os.ReadFile(f.args["path"])
		off, _ := strconv.Atoi(f.args["offset"])
		files := filesIn(data, off)
		if f.misbehave(sub) == "escape" {
			files = append(files, "/etc/passwd", "../../outside.txt", filepath.Join(f.repo(), "..", "beside.txt"))
		}
		return f.reply(map[string]any{"files": files, "current_position": len(lines(data))})
	case "extract-prompts":
		data, _ := os.ReadFile(f.args["session-ref"])
		off, _ := strconv.Atoi(f.args["offset"])
		prompts := []string{}
		for i, l := range lines(data) {
			if i >= off && l.Type == "user" {
				prompts = append(prompts, l.text())
			}
		}
		return f.reply(map[string]any{"prompts": prompts})
	case "extract-summary":
		return f.reply(map[string]any{"summary": "", "has_summary": false})
	case "calculate-tokens":
		data, err := io.ReadAll(f.stdin)
		if err != nil {
			return err
		}
		off, _ := strconv.Atoi(f.args["offset"])
		in, out, calls := 0, 0, 0
		for i, l := range lines(data) {
			if i >= off && l.Usage != nil {
				in, out, calls = in+l.Usage.Input, out+l.Usage.Output, calls+1
			}
		}
		return f.reply(map[string]int{"input_tokens": in, "output_tokens": out, "api_call_count": calls})
	}
	return fmt.Errorf("unknown subcommand %q", sub)
}

// parseHook answers parse-hook: the hook's event, or null for a tool call.
func (f *fake) parseHook() error {
	var p struct {
		Session string `json:"session"`
		Prompt  string `json:"prompt"`
	}
	if err := json.NewDecoder(f.stdin).Decode(&p); err != nil {
		return fmt.Errorf("parse-hook: %w", err)
	}
	types := map[string]int{"session-start": 1, "prompt": 2, "stop": 3, "session-end": 5}
	t, ok := types[f.args["hook"]]
	if !ok {
		_, err := fmt.Fprintln(f.out, "null")
		return err
	}
	ref := filepath.Join(f.sessionDir(), p.Session+".jsonl")
	if f.misbehave("parse-hook") == "escape" {
		ref = filepath.Join(f.sessionDir(), "..", "..", "..", "etc", "passwd")
	}
	ev := map[string]any{"type": t, "session_id": p.Session, "session_ref": ref}
	if p.Prompt != "" {
		ev["prompt"] = p.Prompt
	}
	return f.reply(ev)
}

// install writes .acme/hooks.json with a command per hook; the count is
// of the hooks it added.
func (f *fake) install() error {
	want := map[string]string{}
	for _, h := range HookNames {
		want[h] = f.command(h)
	}
	var have struct {
		Hooks map[string]string `json:"hooks"`
	}
	if b, err := os.ReadFile(f.hooksFile()); err == nil && f.args["force"] == "" {
		_ = json.Unmarshal(b, &have)
	}
	added := 0
	for h, c := range want {
		if have.Hooks[h] != c {
			added++
		}
	}
	if added > 0 {
		b, _ := json.MarshalIndent(map[string]any{"hooks": want}, "", "  ")
		if err := os.MkdirAll(filepath.Dir(f.hooksFile()), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f.hooksFile(), append(b, '\n'), 0o600); err != nil {
			return err
		}
	}
	return f.reply(map[string]int{"hooks_installed": added})
}

// line is one transcript line.
type line struct {
	Type    string `json:"type"`
	Message struct {
		Content string `json:"content"`
	} `json:"message"`
	Files []string `json:"files"`
	Usage *struct {
		Input  int `json:"input"`
		Output int `json:"output"`
	} `json:"usage"`
}

func (l line) text() string { return l.Message.Content }

// lines decodes the transcript's lines (undecodable ones are empty).
func lines(data []byte) []line {
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var l line
		_ = json.Unmarshal(sc.Bytes(), &l)
		out = append(out, l)
	}
	return out
}

// filesIn returns the files of the lines from off on.
func filesIn(data []byte, off int) []string {
	files := []string{}
	for i, l := range lines(data) {
		if i >= off {
			files = append(files, l.Files...)
		}
	}
	return files
}

// Line returns one transcript line of the fake agent.
func Line(typ, text string, files []string, in, out int) string {
	l := map[string]any{"type": typ, "message": map[string]string{"content": text}}
	if len(files) > 0 {
		l["files"] = files
	}
	if in > 0 || out > 0 {
		l["usage"] = map[string]int{"input": in, "output": out}
	}
	b, _ := json.Marshal(l)
	return string(b)
}
