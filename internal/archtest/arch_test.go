package archtest

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/entirecli/entire"

// listed is what `go list -json` says of one package.
type listed struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// repoRoot returns the module's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// tierTags are the build tags of the heavy test tiers: the packages and
// files behind them are held to the rules too.
const tierTags = "torture,realagent,browser"

// packages lists the module's packages, those of the tagged tiers included.
func packages(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", tierTags, "-json", "./...")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// rel returns a package's path inside the module ("" for outside).
func rel(importPath string) string {
	if importPath == module {
		return "."
	}
	r, ok := strings.CutPrefix(importPath, module+"/")
	if !ok {
		return ""
	}
	return r
}

// part names the architecture part a module package belongs to: its top
// folder, or cmd/entire.
func part(r string) string {
	if strings.HasPrefix(r, "cmd/") {
		return "cmd/entire"
	}
	top, _, _ := strings.Cut(r, "/")
	return top
}

// allowed is architecture.md's table: the parts each part may import
// (besides its own subpackages).
var allowed = map[string][]string{
	"cmd/entire": nil, // everything
	"hooks":      {"strategy", "checkpoint", "agent", "hide", "notes", "conclusion", "renderrefs", "internal"},
	"strategy":   {"checkpoint", "agent", "hide", "notes", "conclusion", "renderrefs", "internal"},
	"explain":    {"checkpoint", "agent", "hide", "notes", "conclusion", "renderrefs", "strategy/references", "strategy/subagent", "internal"},
	"checkpoint": {"agent", "conclusion", "renderrefs", "internal"},
	"hide":       {"agent", "internal"},
	"notes":      {"agent", "internal"},
	"agent":      {"internal"},
	"conclusion": {"internal"},
	"renderrefs": {"internal"},
	"internal":   {"internal"},
}

// concreteAgents are the import paths only agent/ and the registration may
// import.
var concreteAgents = []string{module + "/agent/claudecode", module + "/agent/geminicli"}

func TestImportsFollowTheArchitecture(t *testing.T) {
	t.Parallel()
	for _, p := range packages(t) {
		from := rel(p.ImportPath)
		fromPart := part(from)
		may, known := allowed[fromPart]
		if !known {
			t.Errorf("package %s is in no part of architecture.md", from)
			continue
		}
		for _, imp := range p.Imports {
			to := rel(imp)
			if to == "" {
				continue
			}
			if slices.Contains(concreteAgents, imp) && fromPart != "agent" {
				t.Errorf("%s imports the concrete agent %s: only agent/ may (agent/all registers them)", from, to)
			}
			if fromPart == "cmd/entire" || part(to) == fromPart {
				continue
			}
			ok := false
			for _, m := range may {
				if to == m || strings.HasPrefix(to, m+"/") {
					ok = true
					break
				}
			}
			if !ok {
				t.Errorf("%s imports %s: architecture.md does not allow %s -> %s", from, to, fromPart, part(to))
			}
		}
	}
}

// The concrete agents are registered in one place, agent/all, which each
// program imports once: entire's factory.go and entire-web's main.go.
func TestConcreteAgentsRegisteredOnce(t *testing.T) {
	t.Parallel()
	const all = module + "/agent/all"
	var registrations, programs []string
	for _, p := range packages(t) {
		r := rel(p.ImportPath)
		for _, f := range p.GoFiles {
			src, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, f), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range src.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if slices.Contains(concreteAgents, path) && !slices.Contains(concreteAgents, p.ImportPath) {
					registrations = append(registrations, r+"/"+f)
				}
				if path == all {
					programs = append(programs, r+"/"+f)
				}
			}
		}
	}
	slices.Sort(registrations)
	slices.Sort(programs)
	if !slices.Equal(registrations, []string{"agent/all/all.go", "agent/all/all.go"}) {
		t.Errorf("files importing a concrete agent: %v, want only agent/all/all.go", registrations)
	}
	if !slices.Equal(programs, []string{"cmd/entire-web/webcli/webcli.go", "cmd/entire/cli/factory.go"}) {
		t.Errorf("files importing agent/all: %v, want cmd/entire-web/webcli/webcli.go and cmd/entire/cli/factory.go", programs)
	}
}

// goFile is a parsed non-test Go file of the module.
type goFile struct {
	rel  string // path from the module root
	fset *token.FileSet
	file *ast.File
}

// sourceFiles parses the module's non-test Go files.
func sourceFiles(t *testing.T) []goFile {
	t.Helper()
	root := repoRoot(t)
	var out []goFile
	for _, p := range packages(t) {
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatalf("parse %s: %v", path, err)
			}
			r, _ := filepath.Rel(root, path)
			out = append(out, goFile{rel: filepath.ToSlash(r), fset: fset, file: file})
		}
	}
	return out
}

// namesAgent reports whether an identifier or a literal's text names a
// concrete agent.
func namesAgent(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "claude") || strings.Contains(l, "gemini")
}

func TestNoConcreteAgentOutsideAgent(t *testing.T) {
	t.Parallel()
	for _, f := range sourceFiles(t) {
		// The commands are held to the rule too (agent/all registers the
		// agents for them). The real-agent tier and the scale
		// benchmark play a concrete agent's side of the protocol.
		if strings.HasPrefix(f.rel, "agent/") || strings.HasPrefix(f.rel, "cmd/scalebench/") || strings.HasPrefix(f.rel, "cmd/entire/e2etest/") {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Ident:
				if namesAgent(x.Name) {
					t.Errorf("%s: identifier %s names a concrete agent (ask the agent package instead)", f.fset.Position(x.Pos()), x.Name)
				}
			case *ast.BasicLit:
				if x.Kind == token.STRING && namesAgent(x.Value) {
					t.Errorf("%s: literal %s names a concrete agent (ask the agent package instead)", f.fset.Position(x.Pos()), x.Value)
				}
			}
			return true
		})
	}
}

// selector returns "pkg.Name" for a call of a package-level function.
func selector(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return pkg.Name + "." + sel.Sel.Name
}

func TestLibrariesLeaveTerminalAndRuntimeAlone(t *testing.T) {
	t.Parallel()
	knobs := []string{"debug.SetGCPercent", "debug.SetMemoryLimit", "debug.SetMaxThreads", "debug.SetMaxStack"}
	for _, f := range sourceFiles(t) {
		if strings.HasPrefix(f.rel, "cmd/entire/") {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind == token.STRING && strings.Contains(x.Value, "/dev/tty") {
					t.Errorf("%s: a library opens the terminal (%s); prompts belong to cmd/entire", f.fset.Position(x.Pos()), x.Value)
				}
			case *ast.CallExpr:
				name := selector(x)
				if slices.Contains(knobs, name) {
					t.Errorf("%s: a library sets a runtime knob (%s); that belongs to cmd/entire", f.fset.Position(x.Pos()), name)
				}
				if name == "runtime.GOMAXPROCS" && len(x.Args) == 1 {
					if lit, ok := x.Args[0].(*ast.BasicLit); !ok || lit.Value != "0" {
						t.Errorf("%s: a library sets GOMAXPROCS; that belongs to cmd/entire", f.fset.Position(x.Pos()))
					}
				}
			}
			return true
		})
	}
}

func TestOneGitRunner(t *testing.T) {
	t.Parallel()
	for _, f := range sourceFiles(t) {
		// Test-support packages (gittest, lockfiletest) set up fixtures
		// with git as a user would; so do the real-agent tier and the
		// scale benchmark, which commit through the installed hooks.
		if strings.HasPrefix(f.rel, "internal/gitrepo/") || strings.HasPrefix(f.rel, "cmd/entire/e2etest/") || strings.HasPrefix(f.rel, "cmd/scalebench/") || strings.HasSuffix(filepath.Dir(f.rel), "test") {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			name := selector(call)
			args := call.Args
			switch name {
			case "exec.Command":
			case "exec.CommandContext":
				if len(args) > 0 {
					args = args[1:]
				}
			default:
				return true
			}
			if len(args) > 0 {
				if lit, ok := args[0].(*ast.BasicLit); ok && lit.Value == `"git"` {
					t.Errorf("%s: starts git itself; use internal/gitrepo's runner", f.fset.Position(call.Pos()))
				}
			}
			return true
		})
	}
}

func TestTopLevelFoldersWithGo(t *testing.T) {
	t.Parallel()
	tops := map[string]bool{}
	for _, p := range packages(t) {
		if r := rel(p.ImportPath); r != "" && r != "." {
			top, _, _ := strings.Cut(r, "/")
			tops[top] = true
		}
	}
	// Test-only folders count too: go list names every package with Go
	// files, tests included.
	entries, err := os.ReadDir(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !tops[e.Name()] {
			if hasGo(filepath.Join(repoRoot(t), e.Name())) {
				tops[e.Name()] = true
			}
		}
	}
	if len(tops) > 12 {
		names := make([]string, 0, len(tops))
		for n := range tops {
			names = append(names, n)
		}
		slices.Sort(names)
		t.Errorf("%d top-level folders hold Go code (at most 12): %v", len(tops), names)
	}
}

// hasGo reports whether a directory tree holds a .go file.
func hasGo(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// The hooks run `entire` while the agent waits, and every package the
// binary links builds its package-level state before main: the web view's
// syntax highlighter alone built a lexer registry that doubled a hook
// process's start (37 to 74 ms), and the search index's bleve registers
// its index types and analyzers (9 ms). What only the web view and the
// search need lives in entire-web.
func TestHookBinaryLinksNoWebOnlyPackages(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", "./cmd/entire")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/alecthomas/chroma") || strings.HasPrefix(dep, "github.com/blevesearch/") ||
			strings.HasPrefix(dep, module+"/cmd/entire-web") || dep == module+"/explain/search" {
			t.Errorf("cmd/entire links %s, which only the web view and the search need: keep it in cmd/entire-web", dep)
		}
	}
}

// composers are the packages that put their subpackages together: a
// subpackage is a library its parent builds on, and never imports it back.
var composers = []string{"strategy", "hooks"}

func TestSubpackagesDoNotImportTheirComposer(t *testing.T) {
	t.Parallel()
	for _, p := range packages(t) {
		from := rel(p.ImportPath)
		for _, c := range composers {
			if !strings.HasPrefix(from, c+"/") {
				continue
			}
			if slices.Contains(p.Imports, module+"/"+c) {
				t.Errorf("%s imports its parent %s: what both need belongs below them (checkpoint, internal) or in %s", from, c, from)
			}
		}
	}
}

// internal/ holds infrastructure: libraries, never a program (programs are
// under cmd/).
func TestInternalHoldsNoPrograms(t *testing.T) {
	t.Parallel()
	for _, p := range packages(t) {
		if r := rel(p.ImportPath); strings.HasPrefix(r, "internal/") && p.Name == "main" {
			t.Errorf("%s is a program: programs live under cmd/", r)
		}
	}
}

// maxLines bounds a Go file, tests included: a longer one holds more than
// one subject.
const maxLines = 800

func TestNoGoFileOverMaxLines(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		if n := bytes.Count(data, []byte("\n")); n > maxLines {
			r, _ := filepath.Rel(root, p)
			t.Errorf("%s has %d lines (at most %d): split it by subject", r, n, maxLines)
		}
		return nil
	})
}

// The heavy tiers stay out of `go test ./...`: every file of a tier's
// package carries the tier's build tag.
func TestTiersAreBehindTheirTags(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, tier := range strings.Split(tierTags, ",") {
		dir := filepath.Join(root, "cmd", "entire", "e2e", tier)
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Errorf("the %s tier has no package at %s", tier, dir)
		}
		for _, f := range files {
			src, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			tagged := false
			for _, cg := range src.Comments {
				for _, c := range cg.List {
					if strings.HasPrefix(c.Text, "//go:build ") && slices.Contains(strings.FieldsFunc(c.Text[len("//go:build "):], func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z') }), tier) {
						tagged = true
					}
				}
			}
			if !tagged {
				t.Errorf("%s lacks //go:build %s: go test ./... would run it", f, tier)
			}
		}
	}
}
