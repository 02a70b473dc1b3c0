package starlarkexec

import "github.com/star-agent/star-agent/pyfront"

// frontEndType is the Python exception type of a front-end error other than
// a syntax error ("" for SyntaxError).
func frontEndType(fe *pyfront.Error) string { return fe.Type }
