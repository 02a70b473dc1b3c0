package executors

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultAuthorizedImports are the modules code may import unless configured
// otherwise: the union of smolagents' tutorial list and its library's, and
// the other modules the Starlark engine implements, all pure computation
// with no access to the host (bisect, dataclasses, decimal, fractions,
// heapq, operator, struct).
var DefaultAuthorizedImports = []string{
	"abc", "bisect", "collections", "contextlib", "copy", "dataclasses", "datetime", "decimal",
	"enum", "fractions", "functools", "heapq", "itertools", "json", "math",
	"operator", "queue", "random", "re", "stat", "statistics", "string",
	"struct", "textwrap", "time", "typing", "unicodedata",
}

// NeverImportable are modules the local engine refuses whatever the
// configuration says: they reach the file system, processes, the network or
// the interpreter itself. A module is refused for what it is, not for its
// name: each refused module is listed with its C-level twin, its aliases
// and its private modules (posix and nt are os, _io is io, _posixsubprocess
// is subprocess, _frozen_importlib is importlib, ...), and IsHostModule
// also refuses any name that is a refused one behind leading underscores.
var NeverImportable = []string{
	"builtins", "ctypes", "importlib", "io", "multiprocessing", "os",
	"pathlib", "pickle", "pty", "shutil", "socket", "subprocess", "sys",
	// os: its C-level twins, its path modules and the OS modules beside it.
	"posix", "nt", "posixpath", "ntpath", "genericpath", "fcntl", "pwd", "grp",
	"resource", "mmap", "msvcrt", "winreg", "_winapi", "_posixshmem",
	// io, socket, subprocess, importlib, ctypes, pickle, multiprocessing, pty.
	"_io", "_pyio", "_socket", "_posixsubprocess", "_imp", "_frozen_importlib",
	"_frozen_importlib_external", "zipimport", "_ctypes", "_pickle",
	"_compat_pickle", "marshal", "_multiprocessing", "termios",
}

// IsHostModule reports whether module (a dotted name) is one the local
// engine never imports: its top-level name is in NeverImportable, or is
// one of them behind leading underscores (_os, __subprocess).
func IsHostModule(module string) bool {
	top, _, _ := strings.Cut(module, ".")
	if slices.Contains(NeverImportable, top) {
		return true
	}
	bare := strings.TrimLeft(top, "_")
	return bare != top && slices.Contains(NeverImportable, bare)
}

// ImportPolicy decides which modules code may import.
type ImportPolicy struct {
	// Authorized are the importable top-level modules; "*" authorizes all
	// (meaningful for full-Python executors only).
	Authorized []string
	// Forbidden are refused even when authorized (NeverImportable for the
	// local engine).
	Forbidden []string
}

// NewImportPolicy returns the default policy extended with additional
// modules ("pkg" also authorizes "pkg.sub"; "pkg.*" is the same as "pkg").
func NewImportPolicy(additional []string, forbidden []string) ImportPolicy {
	auth := slices.Clone(DefaultAuthorizedImports)
	for _, m := range additional {
		m = strings.TrimSuffix(strings.TrimSpace(m), ".*")
		if m != "" && !slices.Contains(auth, m) {
			auth = append(auth, m)
		}
	}
	slices.Sort(auth)
	return ImportPolicy{Authorized: auth, Forbidden: forbidden}
}

// Check returns nil if module may be imported, or an ExecError of type
// ImportError that names the module and lists what is authorized.
func (p ImportPolicy) Check(module string) *ExecError {
	top, _, _ := strings.Cut(module, ".")
	if slices.Contains(p.Forbidden, top) || slices.Contains(p.Forbidden, module) ||
		len(p.Forbidden) > 0 && slices.Contains(p.Forbidden, strings.TrimLeft(top, "_")) {
		return &ExecError{Type: "ImportError", Message: fmt.Sprintf(
			"import of %s is not allowed: it gives access to the host; authorized imports are: %s",
			module, p.list())}
	}
	if slices.Contains(p.Authorized, "*") {
		return nil
	}
	for _, a := range p.Authorized {
		if a == module || a == top || strings.HasPrefix(module, a+".") {
			return nil
		}
	}
	return &ExecError{Type: "ImportError", Message: fmt.Sprintf(
		"import of %s is not allowed; authorized imports are: %s",
		module, p.list()), Hint: ImportHint(top)}
}

// ImportHint is the operator's hint (ExecError.Hint) for a module the
// import policy refused: how to authorize it. module must be a dotted
// Python name (an executor that reads it from a sandbox checks it with
// IsModuleName first); the hint is "" otherwise.
func ImportHint(module string) string {
	if !IsModuleName(module) {
		return ""
	}
	return fmt.Sprintf("the code imports %s, which is not authorized: if it is safe, add it to the authorized imports (star-agent: --imports %s)", module, module)
}

// NeedsPythonHint is the operator's hint (ExecError.Hint) for code only
// full Python can run, in a run that has no Python executor.
const NeedsPythonHint = "this code needs full Python, which this run does not have: configure a Python executor to run such code (star-agent: --executor wasm, docker, e2b or modal)"

// IsModuleName reports whether s is a dotted Python name such as
// "os.path", of at most 200 bytes.
func IsModuleName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" || (part[0] >= '0' && part[0] <= '9') {
			return false
		}
		for _, c := range part {
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// list is what the model is told it may import: the authorized modules
// that are not forbidden.
func (p ImportPolicy) list() string {
	auth := slices.DeleteFunc(slices.Clone(p.Authorized), func(m string) bool {
		top, _, _ := strings.Cut(m, ".")
		return slices.Contains(p.Forbidden, top) || slices.Contains(p.Forbidden, m)
	})
	return "[" + strings.Join(auth, ", ") + "]"
}
