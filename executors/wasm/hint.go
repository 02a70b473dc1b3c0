package wasm

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/star-agent/star-agent/executors"
)

// dataStack are the modules of the Docker sandbox's default image
// (docker/image.DataStack, by import name) that CPython in WebAssembly
// cannot have: they are C extensions.
var dataStack = []string{"numpy", "pandas", "scipy", "matplotlib", "sympy", "sklearn", "PIL"}

// Execute runs code in the sandbox (runner.Host.Execute) and, when the
// code imported a module the sandbox does not have, tells the operator
// where it is (ExecError.Hint; the model's message is CPython's own).
func (e *Executor) Execute(ctx context.Context, code string) (executors.Result, error) {
	res, err := e.Host.Execute(ctx, code)
	if res.Err != nil && res.Err.Hint == "" {
		res.Err.Hint = missingModuleHint(res.Err)
	}
	return res, err
}

// missingModuleHint is the operator's hint for CPython's "No module named
// 'X'". The module's name is read from the sandbox's message, so it is
// checked before it is repeated: the code there could write anything.
func missingModuleHint(e *executors.ExecError) string {
	if e.Type != "ModuleNotFoundError" {
		return ""
	}
	rest, ok := strings.CutPrefix(e.Message, "No module named '")
	if !ok {
		return ""
	}
	module, ok := strings.CutSuffix(rest, "'")
	if !ok || !executors.IsModuleName(module) {
		return ""
	}
	top, _, _ := strings.Cut(module, ".")
	if slices.Contains(dataStack, top) {
		return fmt.Sprintf("%s is not in the WebAssembly sandbox, which has CPython's standard library and pure-Python packages only; the Docker sandbox's image has it (star-agent: --executor docker, after star-agent sandbox image build)", top)
	}
	return fmt.Sprintf("%s is not in the WebAssembly sandbox, which has CPython's standard library only: add it as a pure-Python package (star-agent: --packages DIR), or run the code in the Docker sandbox with an image that has it (star-agent: --executor docker; sandbox image build --add-debian)", top)
}
