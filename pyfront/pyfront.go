// Package pyfront is the Python front end of the local engine: it parses
// the Python 3.11 a model wrote (scan.go, parse.go, ast.go) and lowers it
// to a go.starlark.net syntax tree (lower.go, lowerexpr.go; try and raise
// in lowertry.go, classes in lowerclass.go, generators and the loops that
// consume them in lowergen.go, and the scope analysis they need in
// scope.go) that starlark.FileProgram compiles, with calls to the
// runtime helpers of package builtins where Starlark's semantics differ
// from Python's.
//
// It is not an interpreter and it does not resolve names: it never runs
// code and never decides whether an import is allowed. Python it cannot
// lower faithfully is reported as an *Error with NeedsPython set, never
// lowered to something that behaves differently.
package pyfront

import (
	"fmt"
	"strings"

	"github.com/star-agent/star-agent/vm/syntax"
)

// Program is lowered Python: a Starlark syntax tree and what it imports.
type Program struct {
	File *syntax.File
	// Imports are the imports an engine may check before the program
	// runs: those it would reach unless an exception stops it first.
	Imports []Import
	// Deferred are the guarded imports: inside an if statement (if
	// TYPE_CHECKING: import numpy) or in the body of a try statement
	// that catches ImportError (try: import numpy / except ImportError:
	// ...). Whether they run depends on the program, so they are checked
	// only where they execute (contract.HelperImport), where a refusal is
	// an ImportError the program can catch.
	Deferred []Import
}

// Import is one module named by an import statement.
type Import struct {
	Module string // dotted name as written, e.g. "os.path"
	Line   int
}

// Error is a syntax error, a forbidden access, or Python the front end
// cannot lower (NeedsPython), with its 1-based position.
type Error struct {
	Line, Col   int
	Msg         string
	NeedsPython bool
	// Type is the Python exception type to report: "" for SyntaxError,
	// "IndentationError" and "TabError" for those SyntaxError subclasses,
	// "NameError" and "AttributeError" for names and attributes that
	// begin with "__".
	Type string
}

func (e *Error) Error() string {
	typ := e.Type
	if typ == "" {
		typ = "SyntaxError"
	}
	if e.NeedsPython {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, typ, e.Msg)
}

// fileOptions are the Starlark dialect lowered programs need.
var fileOptions = syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
	Recursion:       true,
}

// Lower parses Python source and lowers it to a Starlark syntax tree. The
// error, if any, is an *Error.
func Lower(filename, src string) (*Program, error) {
	return LowerIn(filename, src, nil)
}

// LowerIn is Lower for a program that runs where the names for which
// bound reports true are already bound (an executor's globals from
// earlier steps): the lowering then trusts no builtin of those names.
func LowerIn(filename, src string, bound func(name string) bool) (*Program, error) {
	return lowerIn(filename, src, bound, nil)
}

func lowerIn(filename, src string, bound, protected func(name string) bool) (*Program, error) {
	a := getArena()
	defer putArena(a) // after lowering, which is done with the nodes
	stmts, err := parseFile(src, a)
	if err != nil {
		return nil, err
	}
	if strings.Contains(src, "class") {
		mangleModule(stmts)
	}
	if protected != nil {
		if err := checkProtected(stmts, protected); err != nil {
			return nil, err
		}
	}
	if a.bound == nil {
		a.bound, a.scratch = map[string]bool{}, map[string]bool{}
	}
	boundNames(stmts, a.bound, a.has)
	l := &a.lower
	l.file, l.a, l.own, l.bound, l.leafSlabs = &filename, a, a.bound, bound, a.leaves
	l.sizeSlabs(a.ntoks)
	out, err := l.module(stmts)
	a.leaves = l.leafSlabs
	if err != nil {
		return nil, err
	}
	// One allocation for the program, its file and the file's options.
	p := &struct {
		prog Program
		file syntax.File
		opts syntax.FileOptions
	}{opts: fileOptions}
	p.file = syntax.File{Path: filename, Stmts: out, Options: &p.opts}
	p.prog = Program{File: &p.file, Imports: l.imports, Deferred: l.deferred}
	return &p.prog, nil
}
