// Package pyexc is the table of the Python exception types the engine
// knows: CPython 3.11's built-in hierarchy (the part code can meet here),
// the engine's own types, and the exception types of the modules it
// provides, each with its base. It is the only place an exception type is
// named by a string: the runtime raises through these values
// (core.Errorf(pyexc.ValueError, ...)), so a misspelt type does not
// compile, and builds its exception classes from All.
package pyexc

// Type is a Python exception type.
type Type struct {
	name   string
	module string // "" for a builtin; the module that defines it otherwise
	base   *Type  // nil for BaseException
	// bound is true for the builtins that code can name without an
	// import (the module types are members of their module instead).
	bound bool
	// qualified is true when the class prints with its module
	// (<class 'decimal.InvalidOperation'>).
	qualified bool
	// keyed is true when the name alone does not tell the type (struct's
	// error beside re's): errors carry Key, the qualified name, which is
	// also what a traceback's last line prints.
	keyed bool
}

// Name is the type's name as a traceback's last line prints it.
func (t *Type) Name() string { return t.name }

// Key is the name an error of this type carries (core.Error's Type):
// Name, or module.name for a type whose name another type has.
func (t *Type) Key() string {
	if t.keyed {
		return t.module + "." + t.name
	}
	return t.name
}

// Module is the module that defines the type, "" for a builtin.
func (t *Type) Module() string { return t.module }

// Base is the type's base class, nil for BaseException.
func (t *Type) Base() *Type { return t.base }

// Bound reports whether code can name the type without an import.
func (t *Type) Bound() bool { return t.bound }

// Qualified reports whether the class's repr names its module.
func (t *Type) Qualified() bool { return t.qualified }

func (t *Type) String() string { return t.name }

// all is the table in declaration order: every base before its subclasses.
var all []*Type

// All returns the table: every type the engine knows, bases first.
func All() []*Type { return append([]*Type(nil), all...) }

// ByName returns the builtin or engine type called name ("ValueError"),
// or the type a module defines when name is qualified ("json.JSONDecodeError").
func ByName(name string) (*Type, bool) {
	for _, t := range all {
		if t.module == "" && t.name == name || t.module != "" && t.module+"."+t.name == name {
			return t, true
		}
	}
	return nil, false
}

// Of returns the types module defines, in table order.
func Of(module string) []*Type {
	var ts []*Type
	for _, t := range all {
		if t.module == module {
			ts = append(ts, t)
		}
	}
	return ts
}

func add(t *Type) *Type {
	all = append(all, t)
	return t
}

func builtin(base *Type, name string) *Type {
	return add(&Type{name: name, base: base, bound: true})
}

// engine is a type of the engine's own that code cannot name.
func engine(base *Type, name string) *Type { return add(&Type{name: name, base: base}) }

func member(module string, base *Type, name string) *Type {
	return add(&Type{name: name, module: module, base: base})
}

func qualifiedMember(module string, base *Type, name string) *Type {
	return add(&Type{name: name, module: module, base: base, qualified: true})
}

// CPython 3.11's built-in exceptions.
var (
	BaseException          = builtin(nil, "BaseException")
	Exception              = builtin(BaseException, "Exception")
	SystemExit             = builtin(BaseException, "SystemExit")
	KeyboardInterrupt      = builtin(BaseException, "KeyboardInterrupt")
	GeneratorExit          = builtin(BaseException, "GeneratorExit")
	ArithmeticError        = builtin(Exception, "ArithmeticError")
	ZeroDivisionError      = builtin(ArithmeticError, "ZeroDivisionError")
	OverflowError          = builtin(ArithmeticError, "OverflowError")
	FloatingPointError     = builtin(ArithmeticError, "FloatingPointError")
	AssertionError         = builtin(Exception, "AssertionError")
	AttributeError         = builtin(Exception, "AttributeError")
	BufferError            = builtin(Exception, "BufferError")
	EOFError               = builtin(Exception, "EOFError")
	ImportError            = builtin(Exception, "ImportError")
	ModuleNotFoundError    = builtin(ImportError, "ModuleNotFoundError")
	LookupError            = builtin(Exception, "LookupError")
	IndexError             = builtin(LookupError, "IndexError")
	KeyError               = builtin(LookupError, "KeyError")
	MemoryError            = builtin(Exception, "MemoryError")
	NameError              = builtin(Exception, "NameError")
	UnboundLocalError      = builtin(NameError, "UnboundLocalError")
	OSError                = builtin(Exception, "OSError")
	TimeoutError           = builtin(OSError, "TimeoutError")
	FileNotFoundError      = builtin(OSError, "FileNotFoundError")
	FileExistsError        = builtin(OSError, "FileExistsError")
	PermissionError        = builtin(OSError, "PermissionError")
	IsADirectoryError      = builtin(OSError, "IsADirectoryError")
	NotADirectoryError     = builtin(OSError, "NotADirectoryError")
	ConnectionError        = builtin(OSError, "ConnectionError")
	ConnectionRefusedError = builtin(ConnectionError, "ConnectionRefusedError")
	ConnectionResetError   = builtin(ConnectionError, "ConnectionResetError")
	BrokenPipeError        = builtin(ConnectionError, "BrokenPipeError")
	ReferenceError         = builtin(Exception, "ReferenceError")
	RuntimeError           = builtin(Exception, "RuntimeError")
	NotImplementedError    = builtin(RuntimeError, "NotImplementedError")
	RecursionError         = builtin(RuntimeError, "RecursionError")
	StopIteration          = builtin(Exception, "StopIteration")
	StopAsyncIteration     = builtin(Exception, "StopAsyncIteration")
	SyntaxError            = builtin(Exception, "SyntaxError")
	IndentationError       = builtin(SyntaxError, "IndentationError")
	TabError               = builtin(IndentationError, "TabError")
	SystemError            = builtin(Exception, "SystemError")
	TypeError              = builtin(Exception, "TypeError")
	ValueError             = builtin(Exception, "ValueError")
	UnicodeError           = builtin(ValueError, "UnicodeError")
	UnicodeDecodeError     = builtin(UnicodeError, "UnicodeDecodeError")
	UnicodeEncodeError     = builtin(UnicodeError, "UnicodeEncodeError")
	UnicodeTranslateError  = builtin(UnicodeError, "UnicodeTranslateError")
	Warning                = builtin(Exception, "Warning")
	UserWarning            = builtin(Warning, "UserWarning")
	DeprecationWarning     = builtin(Warning, "DeprecationWarning")
	RuntimeWarning         = builtin(Warning, "RuntimeWarning")
	FutureWarning          = builtin(Warning, "FutureWarning")
)

// The engine's own types.
var (
	// ToolError is what a failed tool call raises; code can catch it by
	// name, as in the Python sandboxes.
	ToolError = builtin(Exception, "ToolError")
	// StepLimitError reports an execution stopped at its step limit.
	StepLimitError = engine(Exception, "StepLimitError")
	// ExceptionGroup reports several failed parallel tool calls.
	ExceptionGroup = engine(Exception, "ExceptionGroup")
)

// The exception types of the modules the engine provides.
var (
	FrozenInstanceError = member("dataclasses", AttributeError, "FrozenInstanceError")
	JSONDecodeError     = member("json", ValueError, "JSONDecodeError")
	StatisticsError     = member("statistics", ValueError, "StatisticsError")
	ReError             = member("re", Exception, "error")
	QueueEmpty          = member("queue", Exception, "Empty")
	QueueFull           = member("queue", Exception, "Full")
	StructError         = add(&Type{name: "error", module: "struct", base: Exception, qualified: true, keyed: true})

	// decimal's signals. One base each here: DivisionByZero is caught as
	// ZeroDivisionError, FloatOperation as TypeError.
	DecimalException   = qualifiedMember("decimal", ArithmeticError, "DecimalException")
	Clamped            = qualifiedMember("decimal", DecimalException, "Clamped")
	InvalidOperation   = qualifiedMember("decimal", DecimalException, "InvalidOperation")
	ConversionSyntax   = qualifiedMember("decimal", InvalidOperation, "ConversionSyntax")
	DivisionImpossible = qualifiedMember("decimal", InvalidOperation, "DivisionImpossible")
	DivisionUndefined  = qualifiedMember("decimal", InvalidOperation, "DivisionUndefined")
	InvalidContext     = qualifiedMember("decimal", InvalidOperation, "InvalidContext")
	DivisionByZero     = qualifiedMember("decimal", ZeroDivisionError, "DivisionByZero")
	Inexact            = qualifiedMember("decimal", DecimalException, "Inexact")
	Rounded            = qualifiedMember("decimal", DecimalException, "Rounded")
	Subnormal          = qualifiedMember("decimal", DecimalException, "Subnormal")
	Overflow           = qualifiedMember("decimal", Inexact, "Overflow")
	Underflow          = qualifiedMember("decimal", Inexact, "Underflow")
	FloatOperation     = qualifiedMember("decimal", TypeError, "FloatOperation")
)
