package core

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Error is a Python exception raised by a builtin, a module, or the
// runtime's classification of an interpreter error.
type Error struct {
	Type string // Python exception type name, e.g. "ValueError"
	Msg  string
	// Args, when set, are the exception's arguments, which Msg renders:
	// KeyError's key, whose repr is the message (str(e) of KeyError((1,
	// 2)) is "(1, 2)", and e.args[0] the tuple), or an OSError-style
	// (errno, strerror) pair.
	Args starlark.Tuple
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return e.Type
	}
	return e.Type + ": " + e.Msg
}

// Errorf returns an *Error of the given Python type.
func Errorf(t *pyexc.Type, format string, args ...any) *Error {
	return &Error{Type: t.Key(), Msg: fmt.Sprintf(format, args...)}
}

// Final is the error that carries a final answer out of the code. It is not
// an exception: user code cannot catch it.
type Final struct{ Value starlark.Value }

func (f *Final) Error() string { return "final_answer called" }

// errorPatterns map go.starlark.net's error texts onto Python exception
// types and, where the text carries what Python's message needs, onto
// CPython's wording. Order matters: the first match wins.
var errorPatterns = []struct {
	re      *regexp.Regexp
	typ     *pyexc.Type
	rewrite func(m []string) string // nil keeps the message
}{
	{regexp.MustCompile(`^byte must be in range\(0, 256\)$`), pyexc.ValueError, nil},
	{regexp.MustCompile(`^a bytes-like object is required, not '(\w+)'$`), pyexc.TypeError, func(m []string) string {
		return "a bytes-like object is required, not '" + pyTypeName(m[1]) + "'"
	}},
	{regexp.MustCompile(`^too few values to unpack \(got (\d+), want (\d+)\)`), pyexc.ValueError, func(m []string) string {
		return "not enough values to unpack (expected " + m[2] + ", got " + m[1] + ")"
	}},
	{regexp.MustCompile(`^too many values to unpack \(got -?\d+, want (\d+)\)`), pyexc.ValueError, func(m []string) string {
		return "too many values to unpack (expected " + m[1] + ")"
	}},
	{regexp.MustCompile(`^function (\w+) missing (\d+) arguments? \((.*)\)$`), pyexc.TypeError, missingArgs},
	{regexp.MustCompile(`^function (\w+) accepts (\d+) positional arguments? \((\d+) given\)$`), pyexc.TypeError, func(m []string) string {
		s := "s"
		if m[2] == "1" {
			s = ""
		}
		were := "were"
		if m[3] == "1" {
			were = "was"
		}
		return funcName(m[1]) + "() takes " + m[2] + " positional argument" + s + " but " + m[3] + " " + were + " given"
	}},
	{regexp.MustCompile(`^function (\w+) accepts at most (\d+) positional arguments? \((\d+) given\)$`), pyexc.TypeError, func(m []string) string {
		s := "s"
		if m[2] == "1" {
			s = ""
		}
		return funcName(m[1]) + "() takes at most " + m[2] + " positional argument" + s + " but " + m[3] + " were given"
	}},
	{regexp.MustCompile(`^function (\w+) got an unexpected keyword argument "?(\w+)"?$`), pyexc.TypeError, func(m []string) string {
		return funcName(m[1]) + "() got an unexpected keyword argument '" + m[2] + "'"
	}},
	{regexp.MustCompile(`^function (\w+) got multiple values for parameter "?(\w+)"?$`), pyexc.TypeError, func(m []string) string {
		return funcName(m[1]) + "() got multiple values for argument '" + strings.TrimPrefix(m[2], "__sa_po_") + "'"
	}},
	{regexp.MustCompile(`^argument after \*\* must be a mapping|^keywords must be strings`), pyexc.TypeError, nil},
	{regexp.MustCompile(`^(\w+) value does not support item assignment$`), pyexc.TypeError, func(m []string) string {
		return "'" + pyTypeName(m[1]) + "' object does not support item assignment"
	}},
	{regexp.MustCompile(`^unhandled index operation (\S+)\[\S+\]$`), pyexc.TypeError, func(m []string) string {
		return "'" + pyTypeName(m[1]) + "' object is not subscriptable"
	}},
	{regexp.MustCompile(`^(list|tuple|range|bytes) index: got (\w+), want int$`), pyexc.TypeError, func(m []string) string {
		return m[1] + " indices must be integers or slices, not " + pyTypeName(m[2])
	}},
	{regexp.MustCompile(`^string index: got (\w+), want int$`), pyexc.TypeError, func(m []string) string {
		return "string indices must be integers, not '" + pyTypeName(m[1]) + "'"
	}},
	{regexp.MustCompile(`^index -?\d+ out of range: empty (\w+)`), pyexc.IndexError, func(m []string) string { return pyTypeName(m[1]) + " index out of range" }},
	{regexp.MustCompile(`^floating-point division by zero`), pyexc.ZeroDivisionError, func([]string) string { return "division by zero" }},
	{regexp.MustCompile(`^integer modulo by zero`), pyexc.ZeroDivisionError, func([]string) string { return "integer modulo by zero" }},
	{regexp.MustCompile(`^floored division by zero`), pyexc.ZeroDivisionError, func([]string) string { return "integer division or modulo by zero" }},
	{regexp.MustCompile(`division by zero|modulo by zero`), pyexc.ZeroDivisionError, nil},
	{regexp.MustCompile(`^key (.+) not in \S+$`), pyexc.KeyError, func(m []string) string { return pyLiteral(m[1]) }},
	{regexp.MustCompile(`^pop: missing key`), pyexc.KeyError, nil},
	{regexp.MustCompile(`^key .* not found|not in dict$`), pyexc.KeyError, nil},
	{regexp.MustCompile(`^(\w+) index -?\d+ out of range`), pyexc.IndexError, func(m []string) string { return pyTypeName(m[1]) + " index out of range" }},
	{regexp.MustCompile(`^pop: index -?\d+ out of range: empty list`), pyexc.IndexError, func([]string) string { return "pop from empty list" }},
	{regexp.MustCompile(`index out of range|out of range \[|index \d+ out of range|pop: index|pop from empty|empty list`), pyexc.IndexError, nil},
	{regexp.MustCompile(`^(\S+) has no \.(\w+) field or method`), pyexc.AttributeError, func(m []string) string {
		return "'" + pyTypeName(m[1]) + "' object has no attribute '" + m[2] + "'"
	}},
	{regexp.MustCompile(`^can't assign to \.(\w+) field of (\S+)$`), pyexc.AttributeError, func(m []string) string {
		return "'" + pyTypeName(m[2]) + "' object has no attribute '" + m[1] + "'"
	}},
	{regexp.MustCompile(`has no \.\S+ field or method|has no .* attribute|can't assign to .* field`), pyexc.AttributeError, nil},
	{regexp.MustCompile(`^undefined: (\w+)`), pyexc.NameError, func(m []string) string { return "name '" + m[1] + "' is not defined" }},
	{regexp.MustCompile(`^global variable (\w+) referenced before assignment`), pyexc.NameError, func(m []string) string { return "name '" + m[1] + "' is not defined" }},
	{regexp.MustCompile(`^local variable (\w+) referenced before assignment`), pyexc.UnboundLocalError, func(m []string) string {
		return "cannot access local variable '" + m[1] + "' where it is not associated with a value"
	}},
	{regexp.MustCompile(`not defined|local variable .* referenced before assignment|global variable .* referenced before assignment`), pyexc.NameError, nil},
	{regexp.MustCompile(`excessive repeat|too large to allocate`), pyexc.MemoryError, nil},
	{regexp.MustCompile(`float (overflow|too large)|int too large|out of range for float|too large for a float`), pyexc.OverflowError, nil},
	{regexp.MustCompile(`maximum recursion|called recursively|recursion depth`), pyexc.RecursionError, nil},
	{regexp.MustCompile(`^unknown binary op: (\S+) (\S+) (\S+)`), pyexc.TypeError, binaryOpMessage},
	{regexp.MustCompile(`^unknown unary op: (\S+) (\S+)`), pyexc.TypeError, func(m []string) string {
		return "bad operand type for unary " + m[1] + ": '" + pyTypeName(m[2]) + "'"
	}},
	{regexp.MustCompile(`^(\S+) (<|>|<=|>=) (\S+) not implemented`), pyexc.TypeError, func(m []string) string {
		return "'" + m[2] + "' not supported between instances of '" + pyTypeName(m[1]) + "' and '" + pyTypeName(m[3]) + "'"
	}},
	{regexp.MustCompile(`^invalid call of non-function \((\S+)\)`), pyexc.TypeError, func(m []string) string {
		return "'" + pyTypeName(m[1]) + "' object is not callable"
	}},
	{regexp.MustCompile(`^unhashable type: (\w+)$`), pyexc.TypeError, func(m []string) string { return "unhashable type: '" + pyTypeName(m[1]) + "'" }},
	{regexp.MustCompile(`not iterable|unsupported|unhashable|not callable|got .* want|want .*, got|missing argument|unexpected keyword|takes (exactly|at most|no) |accepts no|got multiple values|invalid .*type|not supported|for parameter|operand|cannot (use|compare|convert)|not implemented`), pyexc.TypeError, nil},
	{regexp.MustCompile(`invalid|not found in|unknown|empty separator|bad |must be|substring not found|not in list|could not convert|cannot parse|no such`), pyexc.ValueError, nil},
}

// missingArgs words a call with missing arguments as CPython does:
// "f() missing 2 required positional arguments: 'a' and 'b'".
func missingArgs(m []string) string {
	names := strings.Split(m[3], ", ")
	for i, n := range names {
		names[i] = "'" + strings.TrimPrefix(n, "__sa_po_") + "'" // pyfront's positional-only parameters
	}
	list := names[0]
	switch len(names) {
	case 1:
	case 2:
		list = names[0] + " and " + names[1]
	default:
		list = strings.Join(names[:len(names)-1], ", ") + ", and " + names[len(names)-1]
	}
	s := "s"
	if len(names) == 1 {
		s = ""
	}
	return funcName(m[1]) + "() missing " + m[2] + " required positional argument" + s + ": " + list
}

// funcName is the name CPython gives a function in its messages: a
// lambda is "<lambda>".
func funcName(name string) string {
	if name == "lambda" {
		return "<lambda>"
	}
	return name
}

// pyTypeName turns go.starlark.net's type names into Python's.
func pyTypeName(t string) string {
	switch t {
	case "string":
		return "str"
	case "builtin_function_or_method":
		return "builtin_function_or_method"
	}
	return t
}

// pyLiteral rewrites a value printed by go.starlark.net (strings in
// double quotes) as Python prints it.
func pyLiteral(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return QuoteString(u)
		}
	}
	switch s {
	case "True", "False", "None":
		return s
	}
	return s
}

// binaryOpMessage words an unsupported operator as CPython does.
func binaryOpMessage(m []string) string {
	x, op, y := pyTypeName(m[1]), m[2], pyTypeName(m[3])
	switch {
	case op == "in":
		return "argument of type '" + y + "' is not iterable"
	case (op == "+" || op == "+=") && (x == "str" || x == "list" || x == "tuple" || x == "bytes"):
		return "can only concatenate " + x + " (not \"" + y + "\") to " + x
	case op == "*" && (x == "str" || x == "list" || x == "tuple") && y != "int":
		return "can't multiply sequence by non-int of type '" + y + "'"
	}
	return "unsupported operand type(s) for " + op + ": '" + x + "' and '" + y + "'"
}

// Classify returns the Python exception type and message of err, which may
// be an *Error, an *Interrupt or any error produced by go.starlark.net.
func Classify(err error) (typ, msg string) {
	var exc *Exception
	if errors.As(err, &exc) {
		return exc.describe()
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Type, e.Msg
	}
	var intr *Interrupt
	if errors.As(err, &intr) {
		return "TimeoutError", intr.Error()
	}
	var se syntax.Error
	if errors.As(err, &se) {
		return "SyntaxError", se.Msg
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
		if m := p.re.FindStringSubmatch(msg); m != nil {
			if p.rewrite != nil {
				return p.typ.Name(), p.rewrite(m)
			}
			return p.typ.Name(), msg
		}
	}
	return "RuntimeError", msg
}

var positionPrefix = regexp.MustCompile(`^[^\s:]+:\d+:\d+: `)

// stripCallPrefix removes go.starlark.net's "fn: " prefix that names the
// builtin, keeping messages close to Python's.
func stripCallPrefix(msg string) string {
	for _, prefix := range []string{"Starlark computation cancelled: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	// Resolver errors carry "file:line:col: "; the engine reports lines.
	if m := positionPrefix.FindStringIndex(msg); m != nil {
		msg = msg[m[1]:]
	}
	return msg
}
