package starlarkexec

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/pyfront"
	"github.com/star-agent/star-agent/vm/resolve"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The errors of an execution, in the words the model reads: front-end and
// resolution errors, interpreter errors with CPython's names, tracebacks,
// and the source line an error quotes, all of them capped.

var unboundRE = regexp.MustCompile(`^(global|local) variable (\w+) referenced before assignment$`)

// pythonNameError rewrites go.starlark.net's unbound-variable errors in
// CPython's words.
func pythonNameError(typ, msg string) (string, string) {
	m := unboundRE.FindStringSubmatch(msg)
	if m == nil {
		return typ, msg
	}
	if m[1] == "local" {
		return "UnboundLocalError", fmt.Sprintf("cannot access local variable '%s' where it is not associated with a value", m[2])
	}
	return "NameError", fmt.Sprintf("name '%s' is not defined", m[2])
}

// frontEndError converts an error of the front end.
func frontEndError(err error, code string) *executors.ExecError {
	var fe *pyfront.Error
	if errors.As(err, &fe) {
		typ := "SyntaxError"
		if t := frontEndType(fe); t != "" {
			typ = t
		}
		ee := &executors.ExecError{Type: typ, Message: fe.Msg, Line: fe.Line, Source: sourceLine(code, fe.Line), NeedsPython: fe.NeedsPython}
		if fe.NeedsPython {
			// What the model can do; a router that sends the code to
			// Python instead keeps only the text before the ";".
			ee.Message += "; full Python is not available in this run: rewrite the code without it"
			ee.Hint = executors.NeedsPythonHint
		}
		return ee
	}
	return &executors.ExecError{Type: "SyntaxError", Message: err.Error()}
}

// runtimeError converts an error of the interpreter or of resolution.
//
// ctxErr is the error of the execution's context when the error was
// raised: the monitor's own record of it is not set while the execution's
// goroutine runs (the watcher reads it meanwhile).
func runtimeError(err error, mon *monitor, ctxErr error, chunk, code string) *executors.ExecError {
	var rerrs resolve.ErrorList
	if errors.As(err, &rerrs) && len(rerrs) > 0 {
		r := rerrs[0]
		typ, msg := "SyntaxError", r.Msg
		if name, ok := strings.CutPrefix(r.Msg, "undefined: "); ok {
			typ, msg = "NameError", fmt.Sprintf("name '%s' is not defined", name)
		}
		line := int(r.Pos.Line)
		return &executors.ExecError{Type: typ, Message: msg, Line: line, Source: sourceLine(code, line)}
	}
	if stop := mon.stopError(); stop != nil {
		err = stop
	} else if ctxErr != nil {
		// Whatever the code raised once the deadline had passed (a
		// builtin interrupted half-way may raise anything), the deadline
		// is what ended it.
		err = core.Errorf(pyexc.TimeoutError, "%s", timeoutMessage(mon.limits, ctxErr))
	}
	typ, msg := pythonNameError(core.Classify(err))
	msg = executors.CapText(msg, mon.limits.MaxOutput)
	ee := &executors.ExecError{Type: typ, Message: msg}
	var eval *starlark.EvalError
	if errors.As(err, &eval) {
		for i := len(eval.CallStack) - 1; i >= 0; i-- {
			fr := eval.CallStack[i]
			if fr.Pos.Filename() == chunk {
				ee.Line = int(fr.Pos.Line)
				break
			}
		}
		ee.Traceback = executors.CapText(traceback(eval, typ, msg), 2*mon.limits.MaxOutput)
	}
	ee.Source = executors.CapText(sourceLine(code, ee.Line), mon.limits.MaxOutput)
	return ee
}

// timeoutMessage says why an execution's context ended.
func timeoutMessage(limits executors.Limits, ctxErr error) string {
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		return fmt.Sprintf("execution exceeded the time limit of %s and was stopped", limits.Timeout)
	}
	return "execution was cancelled"
}

// traceback renders a Python-style traceback of an evaluation error.
func traceback(e *starlark.EvalError, typ, msg string) string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for _, fr := range e.CallStack {
		if fr.Pos.Filename() == "<builtin>" {
			continue
		}
		name := fr.Name
		if name == "<toplevel>" {
			name = "<module>"
		}
		fmt.Fprintf(&b, "  File \"%s\", line %d, in %s\n", fr.Pos.Filename(), fr.Pos.Line, name)
	}
	fmt.Fprintf(&b, "%s: %s", typ, msg)
	return b.String()
}

// maxSourceLine bounds the line an error quotes: a one-line attack must
// not come back as a megabyte of error text.
const maxSourceLine = 500

// sourceLine returns line n (1-based) of code, trimmed and cut at
// maxSourceLine characters, or "".
func sourceLine(code string, n int) string {
	if n <= 0 {
		return ""
	}
	for i := 1; i < n; i++ {
		j := strings.IndexByte(code, '\n')
		if j < 0 {
			return ""
		}
		code = code[j+1:]
	}
	if j := strings.IndexByte(code, '\n'); j >= 0 {
		code = code[:j]
	}
	line := strings.TrimSpace(code)
	if utf8.RuneCountInString(line) > maxSourceLine {
		r := []rune(line)
		line = string(r[:maxSourceLine]) + "…"
	}
	return line
}
