package conclusion

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestConclusionJSON pins the conclusion.json format.
func TestConclusionJSON(t *testing.T) {
	t.Parallel()
	full := Conclusion{
		Status:      StatusPartial,
		Summary:     "Added the login form.",
		Artifacts:   []string{"web/login.go"},
		MemoryRefs:  []string{"auth-flow"},
		FollowUp:    "wire logout",
		Confidence:  0.8,
		Synthesized: true,
		CapturedAt:  time.Date(2026, 11, 22, 3, 4, 5, 0, time.UTC),
		Warnings:    []string{"missing summary"},
	}
	tests := []struct {
		name string
		c    Conclusion
		want string
	}{
		{
			name: "full",
			c:    full,
			want: `{"status":"partial","summary":"Added the login form.","artifacts":["web/login.go"],"memory_refs":["auth-flow"],"follow_up":"wire logout","confidence":0.8,"synthesized":true,"captured_at":"2026-11-22T03:04:05Z","warnings":["missing summary"]}`,
		},
		{
			name: "zero",
			c:    Conclusion{},
			want: `{"status":"","summary":""}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.want {
				t.Errorf("json =\n%s\nwant\n%s", data, tt.want)
			}
			var back Conclusion
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.c) {
				t.Errorf("round trip =\n%#v\nwant\n%#v", back, tt.c)
			}
		})
	}
}

// TestTaskJSON pins the task record's keys.
func TestTaskJSON(t *testing.T) {
	t.Parallel()
	task := Task{
		ID: "toolu_1", Engine: "claude-code", ParentSessionID: "s", ProjectPath: "/p", ProjectID: "pid",
		ProjectName: "p", WorkDir: "/w", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		EndedAt: time.Date(2026, 1, 2, 3, 5, 5, 0, time.UTC), Status: TaskFailed, Output: "o",
		OutputTail: "t", Error: "e", ExitCode: intPtr(0), Conclusion: &Conclusion{Status: StatusFailed},
	}
	want := `{"id":"toolu_1","engine":"claude-code","parent_session_id":"s","project_path":"/p","project_id":"pid",` +
		`"project_name":"p","work_dir":"/w","started_at":"2026-01-02T03:04:05Z","ended_at":"2026-01-02T03:05:05Z",` +
		`"status":"failed","output":"o","output_tail":"t","error":"e","exit_code":0,` +
		`"conclusion":{"status":"failed","summary":""}}`
	data, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != want {
		t.Errorf("json =\n%s\nwant\n%s", data, want)
	}
	if data, _ := json.Marshal(Task{}); string(data) != `{"id":"","engine":"","status":""}` {
		t.Errorf("zero task json = %s", data)
	}
}
