package starlarkagent

import (
	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
)

// defaultExecutor is the local Starlark engine configured from opts.
func defaultExecutor(opts Options) (executors.Executor, error) {
	limits := opts.Limits
	if opts.MaxPrintOutput > 0 {
		limits.MaxOutput = opts.MaxPrintOutput
	}
	return starlarkexec.New(starlarkexec.Options{Limits: limits, AuthorizedImports: opts.AuthorizedImports})
}
