// Package panics turns panics into errors, so that a bug in a hook (in its
// own goroutine or one it started) ends as a logged failure that the agent
// treats as "go on", never as Go's exit status 2, which Claude Code reads as
// "block".
package panics

import (
	"fmt"
	"runtime/debug"
)

// Error is a recovered panic.
type Error struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the stack of the goroutine that panicked, for the log.
	Stack []byte
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("internal error (panic): %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *Error) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// Recover, deferred directly (defer panics.Recover(&err)), turns a panic of
// the function that deferred it into an *Error stored in *err; without a
// panic it leaves *err alone. Deferred first in a goroutine, it runs after
// the goroutine's other defers, so a `defer close(done)` registered before
// it sees *err set.
func Recover(err *error) {
	if r := recover(); r != nil {
		*err = &Error{Value: r, Stack: debug.Stack()}
	}
}

// TestEnv is the environment variable through which tests of the built
// binary make Inject panic. It is read from the process environment only,
// never from hook payloads.
const TestEnv = "ENTIRE_TEST_PANIC"

// Inject panics when getenv(TestEnv) names site: the places a hook's
// goroutines run are marked with it so that tests can prove a panic there
// is recovered. getenv nil does nothing.
func Inject(getenv func(string) string, site string) {
	if getenv != nil && getenv(TestEnv) == site {
		panic("injected for tests at " + site)
	}
}
