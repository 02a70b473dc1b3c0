package executors

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultAuthorizedImports are the modules code may import unless configured
// otherwise: the union of smolagents' tutorial list and its library's.
var DefaultAuthorizedImports = []string{
	"collections", "copy", "datetime", "enum", "functools", "itertools",
	"json", "math", "queue", "random", "re", "stat", "statistics", "string",
	"textwrap", "time", "typing", "unicodedata",
}

// NeverImportable are modules the local engine refuses whatever the
// configuration says: they reach the file system, processes, the network or
// the interpreter itself.
var NeverImportable = []string{
	"builtins", "ctypes", "importlib", "io", "multiprocessing", "os",
	"pathlib", "pickle", "pty", "shutil", "socket", "subprocess", "sys",
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
	if slices.Contains(p.Forbidden, top) || slices.Contains(p.Forbidden, module) {
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
		"import of %s is not allowed; authorized imports are: %s (add it with --imports %s if it is safe)",
		module, p.list(), top)}
}

func (p ImportPolicy) list() string {
	return "[" + strings.Join(p.Authorized, ", ") + "]"
}
