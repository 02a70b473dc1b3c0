package core

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Python exceptions: the built-in exception classes, the error that
// carries a raised exception through go.starlark.net, and the helpers the
// front end lowers try, except and raise to.
//
// A try body is lowered to a nested function that __sa_try calls: an
// error it returns is converted to an exception instance, unless it is
// one user code must never catch (final_answer's *Final, an *Interrupt,
// or a cancelled thread: timeouts and the engine's limits). Handlers are
// ordinary code after the call that tests the exception with
// __sa_exc_match; a handler that does not match re-raises the original
// error with __sa_reraise, so an uncaught exception keeps its position
// and traceback.

// Exception is the error of a raised Python exception: a user exception
// class or a built-in one raised by raise. Classify reports its class
// name and str().
type Exception struct {
	Value *Instance
}

func (e *Exception) Error() string {
	typ, msg := e.describe()
	if msg == "" {
		return typ
	}
	return typ + ": " + msg
}

func (e *Exception) describe() (typ, msg string) {
	th := e.Value.class.thread()
	if th == nil {
		// The Go side's text of an exception (Error) may be asked for
		// many times, outside any execution's budget: it is built only
		// up to errorTextMax, each time under the scratch thread's.
		th = scratchThread("str")
		l := reprStateOf(th)
		*l = reprLimit{max: errorTextMax, active: true}
		msg, err := e.Value.PyStr(th)
		switch {
		case errors.Is(err, errReprFull):
			msg = l.partial + "..."
		case err != nil:
			msg = "<exception str() failed>"
		case len(msg) > errorTextMax:
			msg = msg[:runePrefix(msg, errorTextMax)] + "..."
		}
		return errorKey(e.Value.class), msg
	}
	msg, err := e.Value.PyStr(th)
	if err != nil {
		msg = "<exception str() failed>"
	}
	return errorKey(e.Value.class), msg
}

// errorKey is the type name an exception of class c carries: its name,
// or module.name for a table type whose errors carry that (struct.error).
func errorKey(c *Class) string {
	if c.Module != "" && exceptionClasses[c.Module+"."+c.PyName] == c {
		return c.Module + "." + c.PyName
	}
	return c.PyName
}

// errorTextMax bounds the text of an exception of a built-in class that
// Go code asks for (Error).
const errorTextMax = 64 << 10

// exceptionClasses are the exception classes of the table in package
// pyexc, by the name a raised *Error carries. Built in init, immutable
// after: SetField on them is refused below.
var exceptionClasses = map[string]*Class{}

// excClasses are the same classes by type.
var excClasses = map[*pyexc.Type]*Class{}

var excBase, excKeyError, excStopIteration *Class

func init() {
	for _, t := range pyexc.All() {
		c := &Class{PyName: t.Name(), Dict: map[string]starlark.Value{}, Exc: true}
		if t.Qualified() {
			c.Module = t.Module()
		}
		if t.Base() != nil {
			c.Base = excClasses[t.Base()]
		}
		excClasses[t] = c
		if _, ok := exceptionClasses[t.Key()]; !ok {
			exceptionClasses[t.Key()] = c
		}
	}
	excBase = excClasses[pyexc.BaseException]
	excKeyError = excClasses[pyexc.KeyError]
	excStopIteration = excClasses[pyexc.StopIteration]
	// BaseException.__init__(self, *args) sets args, for user subclasses
	// that call super().__init__(message).
	excBase.Dict["__init__"] = starlark.NewBuiltin("__init__", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(kwargs) > 0 {
			return nil, Errorf(pyexc.TypeError, "BaseException.__init__() takes no keyword arguments")
		}
		if len(args) == 0 {
			return nil, Errorf(pyexc.TypeError, "BaseException.__init__() needs an argument")
		}
		inst, ok := args[0].(*Instance)
		if !ok || !inst.class.Exc {
			return nil, Errorf(pyexc.TypeError, "descriptor '__init__' requires a 'BaseException' object")
		}
		inst.args = append(starlark.Tuple(nil), args[1:]...)
		return starlark.None, nil
	})
	excBase.order = []string{"__init__"}
}

// ExceptionClass returns the class of an exception type of the table.
func ExceptionClass(t *pyexc.Type) *Class { return excClasses[t] }

// exceptionClass returns the class for a type name, deriving an unknown
// name from Exception so that "except Exception" still catches it.
func exceptionClass(name string) *Class {
	if c, ok := exceptionClasses[name]; ok {
		return c
	}
	return &Class{PyName: name, Dict: map[string]starlark.Value{}, Exc: true, Base: excClasses[pyexc.Exception]}
}

// UniverseExceptions are the exception classes bound as builtins. ToolError,
// what a failed tool call raises, is one of them so that code can catch it
// by name, as in the Python sandboxes.
func UniverseExceptions(u starlark.StringDict) {
	for _, t := range pyexc.All() {
		if t.Bound() {
			u[t.Name()] = excClasses[t]
		}
	}
	u["EnvironmentError"] = excClasses[pyexc.OSError]
	u["IOError"] = excClasses[pyexc.OSError]
}

// Catchable reports whether user code may catch err: final_answer, an
// interrupted or cancelled execution and the engine's limits never are.
func Catchable(err error) bool {
	var exc *Exception
	if errors.As(err, &exc) {
		return true
	}
	var f *Final
	var in *Interrupt
	if errors.As(err, &f) || errors.As(err, &in) {
		return false
	}
	return !strings.Contains(err.Error(), "Starlark computation cancelled")
}

// exceptionOf converts a catchable error to the exception instance user
// code sees, remembering the error so that a re-raise keeps it.
func exceptionOf(err error) *Instance {
	var exc *Exception
	if errors.As(err, &exc) {
		exc.Value.raised = err
		return exc.Value
	}
	typ, msg := Classify(err)
	inst := &Instance{class: exceptionClass(typ), attrs: map[string]starlark.Value{}, raised: err}
	var e *Error
	if errors.As(err, &e) && e.Args != nil {
		inst.args = e.Args
	} else if msg != "" {
		inst.args = starlark.Tuple{messageArg(typ, msg)}
	}
	if m := jsonErrorRE.FindStringSubmatch(msg); m != nil && typ == pyexc.JSONDecodeError.Name() {
		// json.JSONDecodeError's attributes, from the message json.go
		// words as CPython does.
		inst.attrs["msg"] = starlark.String(m[1])
		for i, k := range []string{"lineno", "colno", "pos"} {
			n, _ := strconv.Atoi(m[i+2])
			inst.attrs[k] = starlark.MakeInt(n)
		}
		inst.order = []string{"msg", "lineno", "colno", "pos"}
	}
	return inst
}

var jsonErrorRE = regexp.MustCompile(`^(.*): line (\d+) column (\d+) \(char (\d+)\)$`)

// messageArg recovers the argument of a KeyError from its message, which
// Classify renders as the key's repr ('x', 3).
func messageArg(typ, msg string) starlark.Value {
	if typ != pyexc.KeyError.Name() {
		return starlark.String(msg)
	}
	if len(msg) >= 2 && msg[0] == '\'' && msg[len(msg)-1] == '\'' && !strings.ContainsAny(msg[1:len(msg)-1], `'\`) {
		return starlark.String(msg[1 : len(msg)-1])
	}
	if n, err := strconv.ParseInt(msg, 10, 64); err == nil {
		return starlark.MakeInt64(n)
	}
	return starlark.String(msg)
}

func isStopIteration(err error) bool {
	var exc *Exception
	if errors.As(err, &exc) {
		return exc.Value.class.IsSubclassOf(excStopIteration)
	}
	typ, _ := Classify(err)
	return typ == pyexc.StopIteration.Name()
}

func SaTry(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 1 argument", contract.HelperTry)
	}
	r, err := starlark.Call(th, args[0], nil, nil)
	if err == nil {
		return starlark.Tuple{starlark.None, r}, nil
	}
	if !Catchable(err) || Interrupted(th) != nil {
		return nil, err
	}
	return starlark.Tuple{exceptionOf(err), starlark.None}, nil
}

func SaExcMatch(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var exc, t starlark.Value
	if err := starlark.UnpackPositionalArgs(contract.HelperExcMatch, args, kwargs, 2, &exc, &t); err != nil {
		return nil, err
	}
	inst, ok := exc.(*Instance)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "%s: not an exception", contract.HelperExcMatch)
	}
	if t == starlark.None {
		return starlark.True, nil
	}
	ok, err := excMatches(inst, t)
	return starlark.Bool(ok), err
}

func excMatches(inst *Instance, t starlark.Value) (bool, error) {
	switch t := t.(type) {
	case *Class:
		if t.Exc {
			return inst.class.IsSubclassOf(t), nil
		}
	case starlark.Tuple:
		for _, e := range t {
			ok, err := excMatches(inst, e)
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	return false, Errorf(pyexc.TypeError, "catching classes that do not inherit from BaseException is not allowed")
}

// newException makes an exception instance from a raise operand.
func newException(th *starlark.Thread, x starlark.Value) (*Instance, error) {
	switch x := x.(type) {
	case *Class:
		if x.Exc {
			v, err := starlark.Call(th, x, nil, nil)
			if err != nil {
				return nil, err
			}
			if inst, ok := v.(*Instance); ok {
				return inst, nil
			}
		}
	case *Instance:
		if x.class.Exc {
			return x, nil
		}
	}
	return nil, Errorf(pyexc.TypeError, "exceptions must derive from BaseException")
}

func SaRaise(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, cause starlark.Value
	if err := starlark.UnpackPositionalArgs(contract.HelperRaise, args, kwargs, 1, &x, &cause); err != nil {
		return nil, err
	}
	inst, err := newException(th, x)
	if err != nil {
		return nil, err
	}
	if cause != nil {
		if cause == starlark.None {
			inst.cause = starlark.None
		} else if inst.cause, err = newException(th, cause); err != nil {
			return nil, Errorf(pyexc.TypeError, "exception causes must derive from BaseException")
		}
	}
	inst.raised = nil // a new raise starts a new traceback
	return nil, &Exception{Value: inst}
}

func SaReraise(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs(contract.HelperReraise, args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	inst, ok := x.(*Instance)
	if x == starlark.None {
		return nil, Errorf(pyexc.RuntimeError, "No active exception to reraise")
	}
	if !ok {
		return nil, Errorf(pyexc.TypeError, "%s: not an exception", contract.HelperReraise)
	}
	if inst.raised != nil {
		return nil, inst.raised
	}
	return nil, &Exception{Value: inst}
}

func SaAssert(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	inst, err := starlark.Call(th, excClasses[pyexc.AssertionError], args, kwargs)
	if err != nil {
		return nil, err
	}
	return nil, &Exception{Value: inst.(*Instance)}
}
