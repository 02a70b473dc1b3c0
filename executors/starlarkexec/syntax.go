package starlarkexec

import (
	"errors"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/pyfront"
)

var _ executors.SyntaxChecker = (*Executor)(nil)

// CheckSyntax reports whether code parses as Python (see
// executors.SyntaxChecker), with the front end: code it lowers parses, and
// so does code it refuses only for what a run would report, Python it
// cannot lower (full Python may run it) and names that begin with "__". It
// runs nothing and reads no state, so it works in every isolation mode
// and after Close.
func (e *Executor) CheckSyntax(code string) error {
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
