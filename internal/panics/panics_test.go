package panics

import (
	"errors"
	"strings"
	"testing"
)

func TestRecover(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		defer Recover(&err)
		Inject(func(string) string { return "here" }, "here")
	}()
	<-done
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "injected for tests at here") || len(pe.Stack) == 0 {
		t.Fatalf("recovered %v", err)
	}
	base := errors.New("boom")
	func() {
		defer Recover(&err)
		panic(base)
	}()
	if !errors.Is(err, base) {
		t.Fatalf("panic(error) not unwrapped: %v", err)
	}
	err = nil
	func() { defer Recover(&err) }()
	if err != nil {
		t.Fatalf("Recover without a panic set %v", err)
	}
	Inject(nil, "x")
	Inject(func(string) string { return "" }, "x")
}
