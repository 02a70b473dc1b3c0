package isolation

import (
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// TestCancelledSetUp: SetTools and SetVariables of the isolated engine
// under a ctx that ended.
func TestCancelledSetUp(t *testing.T) {
	runnertest.CancelledSetUp(t, func(t *testing.T) executors.Executor {
		return newIsolatedTest(t, Options{}, nil)
	})
}

func TestToolCalls(t *testing.T) {
	runnertest.ToolCalls(t, func(t *testing.T) executors.Executor {
		return newIsolatedTest(t, Options{}, nil)
	})
}

func TestClockPauses(t *testing.T) {
	runnertest.ClockPauses(t, func(t *testing.T, limit time.Duration) executors.Executor {
		return newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: limit}}, nil)
	})
}
