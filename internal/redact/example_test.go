package redact_test

import (
	"fmt"

	"github.com/entirecli/entire/internal/redact"
)

func ExampleRedactor_Text() {
	r, err := redact.New(redact.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Text("export DB_PASSWORD=Zq8vN2kLw4pR"))
	// Output: export DB_PASSWORD=REDACTED
}

func ExampleRedactor_JSONLine() {
	r, err := redact.New(redact.Options{Patterns: []string{`ACME-[0-9]{6}`}})
	if err != nil {
		panic(err)
	}
	line := []byte(`{"uuid":"5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "content": "ticket ACME-123456"}`)
	fmt.Println(string(r.JSONLine(line)))
	// Output: {"uuid":"5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "content": "ticket REDACTED"}
}
