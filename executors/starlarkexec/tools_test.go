package starlarkexec

import (
	"testing"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

func TestToolCalls(t *testing.T) {
	runnertest.ToolCalls(t, func(t *testing.T) executors.Executor {
		return newTestExecutor(t, Options{})
	})
}
