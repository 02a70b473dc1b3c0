package starlarkagent

import (
	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
)

// defaultExecutor is the local Starlark engine configured from opts (whose
// Limits already hold MaxPrintOutput: see New).
func defaultExecutor(opts Options) (executors.Executor, error) {
	return starlarkexec.New(starlarkexec.Options{Limits: opts.Limits, AuthorizedImports: opts.AuthorizedImports})
}
