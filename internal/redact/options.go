package redact

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
)

// PatternError is an expression of Options that does not compile; New
// skips it.
type PatternError struct {
	// Allow is true for an Options.Allow expression, false for an
	// Options.Patterns one.
	Allow bool
	// Index is the expression's position in its list, counting from 1.
	Index int
	// Expr is the expression as given.
	Expr string
	// Err is what regexp.Compile returned (a *syntax.Error).
	Err error
}

// Error names the expression and why it does not compile, on one line, for
// example: pattern 2 "sk-([a-z" is not a valid regular expression (missing
// closing ): `([a-z`) and is ignored.
func (e *PatternError) Error() string {
	kind := "pattern"
	if e.Allow {
		kind = "allow expression"
	}
	why := e.Err.Error()
	var se *syntax.Error
	if errors.As(e.Err, &se) {
		why = fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
	}
	return fmt.Sprintf("%s %d %q is not a valid regular expression (%s) and is ignored", kind, e.Index, e.Expr, why)
}

// Unwrap returns the compile error.
func (e *PatternError) Unwrap() error { return e.Err }

// Invalid returns the expressions of o that do not compile, patterns
// first, each list in order; nil when all compile. These are the ones New
// skips.
func (o Options) Invalid() []*PatternError {
	var out []*PatternError
	for _, l := range []struct {
		allow bool
		exprs []string
	}{{false, o.Patterns}, {true, o.Allow}} {
		for i, x := range l.exprs {
			if _, err := regexp.Compile(x); err != nil {
				out = append(out, &PatternError{Allow: l.allow, Index: i + 1, Expr: x, Err: err})
			}
		}
	}
	return out
}
