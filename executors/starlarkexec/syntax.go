package starlarkexec

import (
	"errors"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/pyfront"
)

var _ executors.SyntaxChecker = (*Executor)(nil)

// CheckSyntax reports whether code parses as Python (see
// executors.SyntaxChecker), as the function CheckSyntax does. It works
// after Close.
func (e *Executor) CheckSyntax(code string) error { return CheckSyntax(code) }

// CheckSyntax reports whether code parses as Python, with the front end:
// code it lowers parses, and so does code it refuses only for what a run
// would report, Python it cannot lower (full Python may run it) and names
// that begin with "__". It runs nothing and needs no Executor, so a
// wrapper that runs the engine elsewhere (package isolation) checks code
// in its own process.
func CheckSyntax(code string) error {
	_, err := pyfront.Lower("<code>", code)
	if err == nil {
		return nil
	}
	var fe *pyfront.Error
	if errors.As(err, &fe) && (fe.NeedsPython || fe.Type == "NameError" || fe.Type == "AttributeError") {
		return nil
	}
	return frontEndError(err, code)
}
