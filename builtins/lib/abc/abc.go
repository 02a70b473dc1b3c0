// Package abc is Python's abc module for the Starlark engine: ABC and
// abstractmethod. Module returns a new module value. A class deriving
// from ABC cannot be instantiated while an abstract method is not
// overridden (TypeError, as in CPython 3.11); ABCMeta and register are
// not provided (metaclasses need full Python).
package abc

import "github.com/star-agent/star-agent/builtins/core"

// Module returns a new abc module.
func Module() *core.PyModule { return core.NewModule("abc", core.AbcModule()) }
