package cli

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/star-agent/star-agent/starlarkagent"
)

// The exit status is part of the CLI's contract: 130 for a run
// interrupted by the user (Ctrl-C, SIGTERM), as a shell reports it; 1 for
// a failed run; 0 with an answer. (run_interrupt.txtar can only check
// that it is not 0.)
func TestExitStatus(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		ctx  context.Context
		err  error
		want int
	}{
		{context.Background(), nil, 0},
		{cancelled, fmt.Errorf("run: %w", starlarkagent.ErrInterrupted), 130},
		{context.Background(), fmt.Errorf("run: %w", starlarkagent.ErrInterrupted), 1}, // a timeout, not the user
		{context.Background(), errors.New("model: 401"), 1},
	} {
		err := exitFor(c.ctx, &starlarkagent.RunResult{Err: c.err}, false)
		got := 0
		if ee, ok := errors.AsType[*ExitError](err); ok {
			got = ee.Code
		} else if err != nil {
			t.Fatalf("%v: not an ExitError: %v", c.err, err)
		}
		if got != c.want {
			t.Errorf("%v (ctx err %v): exit %d, want %d", c.err, c.ctx.Err(), got, c.want)
		}
	}
}
