package geminicli

import "testing"

func TestIsMessagesDocument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"{\n  \"sessionId\": \"s\",\n  \"messages\": []\n}\n", true},
		{"  \n{\n}", true},
		{`{"sessionId":"s","messages":[{"type":"user"}]}`, true},
		{`{"type":"user","message":{"content":"hi"}}`, false},
		{"{\"messages\":[]}\n{\"messages\":[]}\n", false}, // two lines: JSONL
		{`{"messages":`, false},
		{"", false},
	}
	for _, tt := range tests {
		if got := isMessagesDocument([]byte(tt.in)); got != tt.want {
			t.Errorf("isMessagesDocument(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
