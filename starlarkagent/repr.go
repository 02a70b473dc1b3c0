package starlarkagent

import "github.com/star-agent/star-agent/pyvalue"

// pyRepr renders a value as Python's repr() would, so that what the model
// reads about values looks like the Python it writes (see pyvalue.Repr).
func pyRepr(v any) string { return pyvalue.Repr(v) }

// pyStr renders a value as Python's str(): strings as they are.
func pyStr(v any) string { return pyvalue.Str(v) }
