package starlarkexec

import (
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

func TestToolCalls(t *testing.T) {
	runnertest.ToolCalls(t, func(t *testing.T) executors.Executor {
		return newTestExecutor(t, Options{})
	})
}

func TestClockPauses(t *testing.T) {
	runnertest.ClockPauses(t, func(t *testing.T, limit time.Duration) executors.Executor {
		return newTestExecutor(t, Options{Limits: executors.Limits{Timeout: limit}})
	})
}
