package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/gitrepo"
)

// writeHistory writes n checkpoints through the checkpoint writer and the
// code commits that link them (git fast-import), and returns the IDs: hex
// IDs on the metadata branch, or ULIDs an hour apart each on its own ref
// (layout).
func (s *scenario) writeHistory(n int, layout checkpoint.Layout) ([]checkpoint.ID, error) {
	repo, err := gitrepo.Open(s.repo, gitrepo.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		return nil, err
	}
	store := checkpoint.NewStore(repo, time.Now).WithLayout(layout)
	ids := make([]checkpoint.ID, n)
	first := time.Now().Add(-time.Duration(n) * time.Hour)
	for i := range ids {
		ids[i] = checkpoint.ID(fmt.Sprintf("%012x", uint64(i+1)*0x9e3779b97f4a7c15>>16))
		if layout == checkpoint.LayoutRefs {
			ids[i] = checkpoint.NewULID(first.Add(time.Duration(i) * time.Hour))
		}
		if err := writeBenchCheckpoint(repo, store, ids[i], fmt.Sprintf("session-%05d", i/3), i); err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", i, err)
		}
	}
	head, err := s.git("rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("git", "fast-import", "--quiet", "--force")
	cmd.Dir, cmd.Env = s.repo, s.env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(in)
	when := time.Now().Add(-time.Duration(n) * time.Hour).Unix()
	for i, id := range ids {
		msg := fmt.Sprintf("Change %d\n\nEntire-Checkpoint: %s\n", i, id)
		body := fmt.Sprintf("change %d\n", i)
		fmt.Fprintf(bw, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s", when+int64(i)*3600, len(msg), msg)
		if i == 0 {
			fmt.Fprintf(bw, "from %s\n", strings.TrimSpace(head))
		}
		fmt.Fprintf(bw, "M 100644 inline work/f%03d.txt\ndata %d\n%s\n", i%500, len(body), body)
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git fast-import: %w", err)
	}
	if _, err := s.git("reset", "-q", "--hard", "main"); err != nil {
		return nil, err
	}
	// Years of use have been packed many times over (git gc --auto).
	if _, err := s.git("gc", "-q"); err != nil {
		return nil, err
	}
	return ids, nil
}

// measureCommand runs `entire args...` in the repository and records it
// against the scenario's bound for name. It runs through the shim, as the
// hooks do: Linux starts the peak RSS of an exec'd child at its parent's
// (the memory the child shared before exec), and this process is large.
func (s *scenario) measureCommand(name, input string, args ...string) error {
	cmd := exec.Command(filepath.Join(s.b.shimDir, "entire"), args...)
	cmd.Dir, cmd.Env = s.repo, s.env
	os.Remove(s.shimLog)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("entire %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	recs, err := s.shimRecords()
	if err != nil || len(recs) != 1 {
		return fmt.Errorf("entire %s: %d measurements: %v", strings.Join(args, " "), len(recs), err)
	}
	s.record(name, input, recs[0].measurement())
	return nil
}

// recordInProcess records a step measured inside this process (its wall
// time only).
func (s *scenario) recordInProcess(name, input string, d time.Duration) {
	s.record(name, input, measurement{wall: d})
}

// pushMeasured pushes main to origin through the installed hooks and
// records the pre-push hook.
func (s *scenario) pushMeasured(input string) error {
	os.Remove(s.shimLog)
	cmd := exec.Command("git", "push", "-q", "origin", "main")
	cmd.Dir, cmd.Env = s.repo, s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git push: %w\n%s", err, out)
	}
	if strings.Contains(string(out), "could not push") {
		return fmt.Errorf("git push: %s", out)
	}
	recs, err := s.shimRecords()
	if err != nil {
		return fmt.Errorf("git push ran no entire hook: %w", err)
	}
	for _, rec := range recs {
		s.record(strings.TrimPrefix(strings.Join(rec.Args[:min(3, len(rec.Args))], " "), "hooks ")+s.pushLabel, input, rec.measurement())
	}
	return nil
}

// scenario is one repository and one Claude Code session in it.
type scenario struct {
	b          *bench
	name       string
	repo       string
	home       string
	env        []string
	sessionID  string
	transcript string
	shimLog    string
	// pushLabel is added to the names of the hooks a push runs.
	pushLabel string
	results   []result
	turn      int
	// quiet: the agent's hooks run unmeasured (the team scenario measures
	// its pushes only).
	quiet bool
	// branch and transport are a team clone's branch and how it reaches
	// the remote.
	branch, transport string
}

// newScenario makes a repository with a few files and a first commit, runs
// `entire enable --agent claude-code` in it and commits what enable wrote.
func (b *bench) newScenario(name string) (*scenario, error) {
	s, err := b.scenarioAt(name, filepath.Join(b.work, name))
	if err != nil {
		return nil, err
	}
	if _, err := s.git("init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	for i := range 40 {
		if err := s.writeFile(fmt.Sprintf("src/file%02d.go", i), sourceText(i, 4<<10)); err != nil {
			return nil, err
		}
	}
	if err := s.writeFile("README.md", "# bench\n"); err != nil {
		return nil, err
	}
	if err := s.commitPlain("initial"); err != nil {
		return nil, err
	}
	if err := s.enable(); err != nil {
		return nil, err
	}
	if err := s.commitPlain("enable entire"); err != nil {
		return nil, err
	}
	os.Remove(s.shimLog)
	return s, nil
}

// enable runs `entire enable` in the repository, unmeasured, once, as a
// user does: the history and team scenarios with the v1 layout they
// measure, the others with the layout a new repository gets.
func (s *scenario) enable() error {
	args := []string{"enable", "--agent", "claude-code", "--strategy", "manual-commit", "--telemetry=false"}
	if s.name == "history" || s.name == "team" {
		args = append(args, "--checkpoints", "git-branch")
	}
	cmd := exec.Command(s.b.bin, args...)
	cmd.Dir, cmd.Env = s.repo, s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("entire enable: %w\n%s", err, out)
	}
	return nil
}

// scenarioAt prepares the directories and environment of a scenario whose
// repository is to be root/repo, with a home of its own and a new session.
func (b *bench) scenarioAt(name, root string) (*scenario, error) {
	b.sessions++
	s := &scenario{b: b, name: name, repo: filepath.Join(root, "repo"), home: filepath.Join(root, "home"),
		sessionID: fmt.Sprintf("5ca1ebe0-0000-4000-8000-%012d", b.sessions), shimLog: filepath.Join(root, "shim.jsonl")}
	for _, d := range []string{s.repo, s.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", name, err)
		}
	}
	s.env = append(os.Environ(),
		"HOME="+s.home,
		"XDG_CONFIG_HOME="+filepath.Join(s.home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com",
		"PATH="+b.shimDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		shimLogEnv+"="+s.shimLog,
		shimTargetEnv+"="+b.bin,
	)
	if b.opts.profiles != "" {
		s.env = append(s.env, shimProfileEnv+"="+b.opts.profiles)
	}
	// Claude Code keeps a project's transcripts in
	// ~/.claude/projects/<the project path, every other character a dash>.
	s.transcript = filepath.Join(s.home, ".claude", "projects", sanitize(s.repo), s.sessionID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(s.transcript), 0o755); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	return s, nil
}

// sanitize is Claude Code's project directory name for a path.
func sanitize(p string) string {
	b := []byte(p)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// git runs git in the repository (with the installed hooks, through the
// shim) and returns its output.
func (s *scenario) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = s.repo, s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// commitPlain commits everything without measuring.
func (s *scenario) commitPlain(msg string) error {
	if _, err := s.git("add", "-A"); err != nil {
		return err
	}
	_, err := s.git("commit", "-q", "-m", msg)
	return err
}

func (s *scenario) writeFile(rel, content string) error {
	p := filepath.Join(s.repo, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// hook runs `entire hooks claude-code <verb>` with payload on stdin (the
// session's fields filled in, as Claude Code sends them) and records its
// cost under input.
func (s *scenario) hook(verb, event, input string, payload map[string]any) error {
	full := map[string]any{
		"session_id":      s.sessionID,
		"transcript_path": s.transcript,
		"cwd":             s.repo,
		"hook_event_name": event,
	}
	if verb != "session-start" {
		full["permission_mode"] = "bypassPermissions"
		full["prompt_id"] = fmt.Sprintf("7b0e5a1c-0000-4000-8000-%012d", s.turn)
	}
	for k, v := range payload {
		full[k] = v
	}
	data, err := json.Marshal(full)
	if err != nil {
		return fmt.Errorf("payload of %s: %w", verb, err)
	}
	return s.hookRaw(verb, input, data)
}

// hookRaw runs a hook with stdin as is. It runs through the shim: Linux
// counts the peak RSS of the process that forked a child into the child's
// rusage, and this program holds the payloads.
func (s *scenario) hookRaw(verb, input string, stdin []byte) error {
	cmd := exec.Command(filepath.Join(s.b.shimDir, "entire"), "hooks", "claude-code", verb)
	cmd.Dir = s.repo
	cmd.Env = s.env
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	os.Remove(s.shimLog)
	if s.b.opts.savePayloads {
		name := fmt.Sprintf("payload-%02d-%s.json", len(s.results), verb)
		if err := os.WriteFile(filepath.Join(filepath.Dir(s.repo), name), stdin, 0o644); err != nil {
			return fmt.Errorf("save payload: %w", err)
		}
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("hook %s: %w: %s", verb, err, out.String())
	}
	recs, err := s.shimRecords()
	if err != nil || len(recs) != 1 {
		return fmt.Errorf("hook %s: %d measurements: %v", verb, len(recs), err)
	}
	if !s.quiet {
		s.record("claude-code "+verb, input, recs[0].measurement())
	}
	return nil
}

// shimRecords reads what the shim measured since the log was last removed.
func (s *scenario) shimRecords() ([]shimRecord, error) {
	data, err := os.ReadFile(s.shimLog)
	if err != nil {
		return nil, fmt.Errorf("shim log: %w", err)
	}
	var recs []shimRecord
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var rec shimRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("shim log: %w", err)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// measurement converts a shim record back.
func (r shimRecord) measurement() measurement {
	d := func(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
	return measurement{wall: d(r.WallMS), user: d(r.UserMS), sys: d(r.SysMS), maxRSSK: r.MaxRSSK, code: r.Code}
}

// record adds one measurement to the scenario's results.
func (s *scenario) record(hook, input string, m measurement) {
	o := s.b.opts
	r := result{Scenario: s.name, Hook: hook, Input: input, WallMS: ms(m.wall), CPUMS: ms(m.user + m.sys),
		MaxRSSMB: float64(m.maxRSSK) / 1024, Code: m.code}
	limit := o.wallLimit
	if d, ok := stepBounds[hook]; ok {
		limit = d
	}
	r.Pass = m.code == 0 && m.wall <= limit && r.MaxRSSMB <= float64(o.rssLimitMB)
	s.results = append(s.results, r)
	fmt.Fprintf(os.Stderr, "  %-32s %8.0f ms %8.0f ms cpu %7.1f MB\n", hook, r.WallMS, r.CPUMS, r.MaxRSSMB)
}

// commit stages the work tree and runs `git commit` through the installed
// hooks, recording every `entire` call the hooks make.
func (s *scenario) commit(msg, input string) error {
	if _, err := s.git("add", "-A"); err != nil {
		return err
	}
	os.Remove(s.shimLog)
	cmd := exec.Command("git", "commit", "-q", "-m", msg)
	cmd.Dir, cmd.Env = s.repo, s.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	m, err := measure(cmd)
	if err != nil {
		return err
	}
	if m.code != 0 {
		return fmt.Errorf("git commit exit %d: %s", m.code, out.String())
	}
	recs, err := s.shimRecords()
	if err != nil {
		return fmt.Errorf("git commit ran no entire hook: %w", err)
	}
	for _, rec := range recs {
		name := strings.TrimPrefix(strings.Join(rec.Args, " "), "hooks ")
		name = strings.TrimSuffix(name, " .git/COMMIT_EDITMSG message")
		name = strings.TrimSuffix(name, " .git/COMMIT_EDITMSG")
		s.record(name, input, rec.measurement())
	}
	trailers, _ := s.git("log", "-1", "--format=%(trailers:key=Entire-Checkpoint,valueonly)")
	if strings.TrimSpace(trailers) == "" {
		return errors.New("the commit has no Entire-Checkpoint trailer")
	}
	return nil
}

// teamTurn plays one agent turn writing a file of the developer's own and
// commits it through the installed hooks; the commit must be linked.
func (d *scenario) teamTurn(round int) error {
	w, err := d.openTranscript()
	if err != nil {
		return err
	}
	defer w.close()
	if err := d.startTurn(w, fmt.Sprintf("round %d: record the work of %s", round+1, d.branch)); err != nil {
		return err
	}
	rel := fmt.Sprintf("%s/round%d.go", d.branch, round+1)
	if err := d.writeTool(w, rel, sourceText(1000+round, 2<<10)); err != nil {
		return err
	}
	if err := d.endTurn(w, "Recorded.", ""); err != nil {
		return err
	}
	if _, err := d.git("add", "-A"); err != nil {
		return err
	}
	if _, err := d.git("commit", "-q", "-m", fmt.Sprintf("%s, round %d", d.branch, round+1)); err != nil {
		return err
	}
	msg, err := d.git("log", "-1", "--format=%B")
	if err != nil {
		return err
	}
	if !trailerRe.MatchString(msg) {
		return fmt.Errorf("round %d: the commit has no Entire-Checkpoint trailer", round+1)
	}
	return nil
}

// teamPushMeasured pushes the developer's branch through the installed
// hooks, records it and returns git's output. git runs under the shim, so
// that its peak RSS is its own (see measureCommand).
func (d *scenario) teamPushMeasured(input string) (string, error) {
	cmd := exec.Command(filepath.Join(d.b.shimDir, "entire"), "push", "-q", "origin", d.branch)
	cmd.Dir, cmd.Env = d.repo, append(d.env[:len(d.env):len(d.env)], shimCommandEnv+"=git")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	os.Remove(d.shimLog)
	err := cmd.Run()
	recs, rerr := d.shimRecords()
	if rerr != nil {
		return out.String(), fmt.Errorf("git push: %w", rerr)
	}
	measured := 0
	for _, rec := range recs {
		if len(rec.Args) > 0 && rec.Args[0] == "push" {
			d.record(teamPush, input, rec.measurement())
			measured++
		}
	}
	if measured != 1 {
		return out.String(), fmt.Errorf("git push: %d measurements", measured)
	}
	if err != nil {
		return out.String(), fmt.Errorf("git push: %w\n%s", err, out.String())
	}
	return out.String(), nil
}

// checkRemote records whether every Entire-Checkpoint trailer on the
// remote's developer branches names a checkpoint on its metadata branch,
// and whether no push said it left checkpoints behind.
func (s *scenario) checkRemote(bare string, devs []*scenario, leftBehind []string) error {
	tree, err := s.git("-C", bare, "ls-tree", "-r", "--name-only", checkpoint.MetadataBranch)
	if err != nil {
		return err
	}
	onRemote := map[string]bool{}
	for _, p := range strings.Split(tree, "\n") {
		if f := strings.Split(p, "/"); len(f) == 3 && f[2] == checkpoint.MetadataFile {
			onRemote[f[0]+f[1]] = true
		}
	}
	var linked, missing []string
	for _, d := range devs {
		log, err := s.git("-C", bare, "log", "--format=%B", d.branch, "--not", "main")
		if err != nil {
			return err
		}
		for _, m := range trailerRe.FindAllStringSubmatch(log, -1) {
			linked = append(linked, m[1])
			if !onRemote[m[1]] {
				missing = append(missing, d.branch+":"+m[1])
			}
		}
	}
	sort.Strings(missing)
	want := len(devs) * s.b.opts.teamRounds
	r := result{Scenario: s.name, Hook: "trailers on the remote's metadata", Input: fmt.Sprintf("%d of %d", len(linked)-len(missing), want),
		Pass: len(missing) == 0 && len(linked) == want && len(leftBehind) == 0}
	s.results = append(s.results, r)
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "  missing on the remote: %s\n", strings.Join(missing, ", "))
	}
	for _, o := range leftBehind {
		fmt.Fprintf(os.Stderr, "  a push left checkpoints behind: %s\n", o)
	}
	return nil
}
