// Package pyfront is the Python front end of the local engine.
// SCAFFOLDING: the front-end helper replaces this file.
package pyfront

import (
	"fmt"

	"go.starlark.net/syntax"
)

// Program is lowered Python: a Starlark syntax tree and what it imports.
type Program struct {
	File    *syntax.File
	Imports []Import
}

// Import is one module named by an import statement.
type Import struct {
	Module string // dotted name as written, e.g. "os.path"
	Line   int
}

// Error is a syntax error, or Python the front end cannot lower
// (NeedsPython), with its position.
type Error struct {
	Line, Col   int
	Msg         string
	NeedsPython bool
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Lower parses Python source and lowers it to a Starlark syntax tree.
func Lower(filename, src string) (*Program, error) {
	f, err := (&syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}).Parse(filename, src, 0)
	if err != nil {
		if se, ok := err.(syntax.Error); ok {
			return nil, &Error{Line: int(se.Pos.Line), Col: int(se.Pos.Col), Msg: se.Msg}
		}
		return nil, err
	}
	return &Program{File: f}, nil
}
