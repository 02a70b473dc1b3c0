package builtins

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.starlark.net/starlark"
)

// Error is a Python exception raised by a builtin, a module, or the
// runtime's classification of an interpreter error.
type Error struct {
	Type string // Python exception type name, e.g. "ValueError"
	Msg  string
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return e.Type
	}
	return e.Type + ": " + e.Msg
}

// Errorf returns an *Error of the given Python type.
func Errorf(typ, format string, args ...any) *Error {
	return &Error{Type: typ, Msg: fmt.Sprintf(format, args...)}
}

// Final is the error that carries a final answer out of the code. It is not
// an exception: user code cannot catch it.
type Final struct{ Value starlark.Value }

func (f *Final) Error() string { return "final_answer called" }

// errorPatterns map go.starlark.net's error texts onto Python exception
// types. Order matters: the first match wins.
var errorPatterns = []struct {
	re  *regexp.Regexp
	typ string
}{
	{regexp.MustCompile(`division by zero|modulo by zero`), "ZeroDivisionError"},
	{regexp.MustCompile(`^key .* not in dict|^key .* not found|not in dict$`), "KeyError"},
	{regexp.MustCompile(`index out of range|out of range \[|index \d+ out of range|pop: index|pop from empty|empty list`), "IndexError"},
	{regexp.MustCompile(`has no \.\S+ field or method|has no .* attribute|can't assign to .* field`), "AttributeError"},
	{regexp.MustCompile(`^undefined: |not defined|local variable .* referenced before assignment|global variable .* referenced before assignment`), "NameError"},
	{regexp.MustCompile(`excessive repeat|too large to allocate`), "MemoryError"},
	{regexp.MustCompile(`float (overflow|too large)|int too large|out of range for float`), "OverflowError"},
	{regexp.MustCompile(`maximum recursion|called recursively|recursion depth`), "RecursionError"},
	{regexp.MustCompile(`not iterable|unsupported|unhashable|not callable|got .* want|want .*, got|missing argument|unexpected keyword|takes (exactly|at most|no) |accepts no|got multiple values|invalid .*type|not supported|for parameter|operand|cannot (use|compare|convert)`), "TypeError"},
	{regexp.MustCompile(`invalid|not found in|unknown|empty separator|bad |must be|substring not found|not in list|could not convert|cannot parse|no such`), "ValueError"},
}

// Classify returns the Python exception type and message of err, which may
// be an *Error, an *Interrupt or any error produced by go.starlark.net.
func Classify(err error) (typ, msg string) {
	var e *Error
	if errors.As(err, &e) {
		return e.Type, e.Msg
	}
	var intr *Interrupt
	if errors.As(err, &intr) {
		return "TimeoutError", intr.Error()
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		if ee.Unwrap() != nil {
			if errors.As(ee.Unwrap(), &e) {
				return e.Type, e.Msg
			}
		}
		msg = ee.Msg
	} else {
		msg = err.Error()
	}
	msg = stripCallPrefix(msg)
	for _, p := range errorPatterns {
		if p.re.MatchString(msg) {
			return p.typ, msg
		}
	}
	return "RuntimeError", msg
}

// stripCallPrefix removes go.starlark.net's "fn: " prefix that names the
// builtin, keeping messages close to Python's.
func stripCallPrefix(msg string) string {
	for _, prefix := range []string{"Starlark computation cancelled: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}
