package claudecode

import "testing"

func TestTaskNotification(t *testing.T) {
	a := &Agent{}
	block := "<task-notification>\n<task-id>a583f8e4544955ddd</task-id>\n<tool-use-id>toolu_01X</tool-use-id>\n<output-file>/tmp/x.output</output-file>\n<status>completed</status>\n<summary>Agent \"Write sub.txt\" finished</summary>\n<result>Wrote it.\n\n&lt;entire:conclusion&gt;\nstatus: success\n&lt;/entire:conclusion&gt;</result>\n</task-notification>"
	wrapped := "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated background-task event, NOT a message from the user.\n\n" + block + "\n</system-reminder>"
	for name, prompt := range map[string]string{"bare": block, "wrapped": wrapped} {
		n, ok := a.TaskNotification(prompt)
		if !ok || n.ToolUseID != "toolu_01X" || n.Status != "completed" || n.Result != "Wrote it.\n\n<entire:conclusion>\nstatus: success\n</entire:conclusion>" {
			t.Errorf("%s: %+v %v", name, n, ok)
		}
	}
	for _, prompt := range []string{
		"fix the bug",
		"please read this: " + block, // a person's words beside it
		"<task-notification><status>completed</status></task-notification>", // no tool use
	} {
		if n, ok := a.TaskNotification(prompt); ok {
			t.Errorf("%q read as a notification: %+v", prompt, n)
		}
	}
}

func FuzzTaskNotification(f *testing.F) {
	f.Add("<task-notification><tool-use-id>t</tool-use-id><result>x</result></task-notification>")
	f.Add("<system-reminder>[SYSTEM NOTIFICATION]\n\n<task-notification></task-notification></system-reminder>")
	a := &Agent{}
	f.Fuzz(func(t *testing.T, s string) {
		if n, ok := a.TaskNotification(s); ok && n.ToolUseID == "" {
			t.Fatalf("notification without a tool use ID: %q", s)
		}
	})
}
