package mcp

import (
	"strings"

	"github.com/star-agent/star-agent/tool"
)

// identifier makes s a Python identifier that star-agent accepts as a tool
// name: characters other than ASCII letters, digits and "_" become "_", a
// leading digit or a leading "__" (reserved for dunders) gets a prefix,
// and a Python keyword gets a trailing "_".
func identifier(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	id := b.String()
	switch {
	case id == "" || strings.Trim(id, "_") == "":
		return "tool"
	case id[0] >= '0' && id[0] <= '9':
		id = "t_" + id
	case strings.HasPrefix(id, "__"):
		id = "t_" + strings.TrimLeft(id, "_")
	}
	if len(id) > maxName {
		id = id[:maxName]
	}
	if pythonKeywords[id] {
		id += "_"
	}
	return id
}

// maxName bounds a tool's name (before a server prefix), against a server
// whose names would flood the prompt.
const maxName = 64

// reserved names are never given to a tool as they are: the agent's own
// functions and Python's builtins, which a tool would hide from the code.
func reserved(name string) bool {
	return tool.IsReserved(name) || pythonBuiltins[name]
}

var pythonKeywords = set("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield")

var pythonBuiltins = set(`abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex
copyright credits delattr dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash
hex id input int isinstance issubclass iter len license list locals map max memoryview min next object oct open ord pow print
property quit range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip
Exception BaseException ValueError TypeError KeyError IndexError RuntimeError ExceptionGroup BaseExceptionGroup
ArithmeticError AssertionError AttributeError EOFError FileNotFoundError FloatingPointError GeneratorExit ImportError
IndentationError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotImplemented NotImplementedError
OSError OverflowError PermissionError RecursionError StopAsyncIteration StopIteration SyntaxError SystemError SystemExit
TimeoutError UnboundLocalError UnicodeError UnicodeDecodeError UnicodeEncodeError Warning ZeroDivisionError`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
