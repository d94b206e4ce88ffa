package conclusion_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/entirecli/entire/conclusion"
)

func ExampleParse() {
	output := `I added the login form; tests pass.

<entire:conclusion>
status: Success
summary: |
  Added the login form and its handler.
artifacts:
  - web/login.go
  - "  "
confidence: 0.9
</entire:conclusion>`

	c, ok := conclusion.Parse(output)
	fmt.Println(ok, c.Status, c.Confidence)
	fmt.Println(c.Summary)
	fmt.Println(c.Artifacts, c.Warnings)
	// Output:
	// true success 0.9
	// Added the login form and its handler.
	// [web/login.go] [dropped 1 blank artifacts entry]
}

func ExampleEnrich() {
	exit := 1
	task := &conclusion.Task{
		ID:          "toolu_01",
		Engine:      "claude-code",
		ProjectPath: "/home/dev/shop",
		Status:      conclusion.TaskFailed,
		Output:      "npm test\n3 failing",
		Error:       "tests failed",
		ExitCode:    &exit,
	}
	opts := conclusion.DelegationOptions{
		SynthesizeFallback: true, // no block in the output: derive one
		Now:                func() time.Time { return time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC) },
	}
	c := conclusion.Enrich(task, opts, nil)
	fmt.Println(c.Status, c.Synthesized, c.CapturedAt.Format(time.RFC3339))
	fmt.Println(c.Summary)
	fmt.Println(task.ProjectName)
	// Output:
	// failed true 2026-11-22T03:00:00Z
	// tests failed (exit code 1)
	// shop
}

func ExampleFormatForParent() {
	task := &conclusion.Task{
		ID:          "toolu_01",
		Engine:      "claude-code",
		ProjectName: "shop",
		Status:      conclusion.TaskCompleted,
		Conclusion: &conclusion.Conclusion{
			Status:     conclusion.StatusPartial,
			Summary:    "Added the login form; logout is not wired yet.",
			Artifacts:  []string{"web/login.go", "web/login_test.go"},
			MemoryRefs: []string{"auth-flow"},
			FollowUp:   "Wire the logout button.",
			Confidence: 0.7,
		},
	}
	fmt.Println(conclusion.FormatForParent(task, nil))
	// Output:
	// [delegated-result task=toolu_01 engine=claude-code project=shop status=partial confidence=0.70]
	// summary: Added the login form; logout is not wired yet.
	// follow_up: Wire the logout button.
	// artifacts: web/login.go, web/login_test.go
	// memory_refs: auth-flow
}

func ExampleFormatForParent_resolvers() {
	repo, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(repo)
	_ = os.WriteFile(filepath.Join(repo, "login.go"), []byte("package web\n"), 0o644)

	task := &conclusion.Task{
		ID:     "toolu_02",
		Engine: "claude-code",
		Conclusion: &conclusion.Conclusion{
			Status:     conclusion.StatusSuccess,
			Artifacts:  []string{"login.go", "logout.go"},
			MemoryRefs: []string{"auth-flow"},
		},
	}
	res := &conclusion.ResolveOptions{
		Artifacts: conclusion.NewFilesystemArtifactResolver(repo),
		Memory:    func(ref string) string { return ref + " (note)" },
	}
	fmt.Println(conclusion.FormatForParent(task, res))
	// Output:
	// [delegated-result task=toolu_02 engine=claude-code project=unknown status=success]
	// artifacts:
	//   - login.go (12 B)
	//   - logout.go (missing)
	// memory_refs:
	//   - auth-flow (note)
}

func ExampleBriefInstruction() {
	prompt := "Add a login form to the web app."
	prompt += conclusion.BriefInstruction()
	c, ok := conclusion.Parse(prompt) // the template itself is a valid block
	fmt.Println(ok, c.Status, c.Warnings == nil)
	// Output:
	// true success true
}
