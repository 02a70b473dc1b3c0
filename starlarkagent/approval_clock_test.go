package starlarkagent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/wasm"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
)

// Times of the tests of approval waits: the execution's time limit, and
// an approver that takes longer than that to decide.
const (
	clockLimit = 500 * time.Millisecond
	clockWait  = 1500 * time.Millisecond
)

// clockEngines are the executors a wait for approval must not time out
// in: the Starlark engine in process, the same in a child process, and
// CPython in the WebAssembly sandbox (the call bridged to the host).
var clockEngines = []struct {
	name string
	open func(t *testing.T) executors.Executor
}{
	{"starlark", nil},
	{"isolation", func(t *testing.T) executors.Executor {
		e, err := isolation.New(isolation.Options{Limits: executors.Limits{Timeout: clockLimit}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}},
	{"wasm", func(t *testing.T) executors.Executor {
		e, err := wasm.New(wasm.Options{Limits: executors.Limits{Timeout: clockLimit}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}},
}

// clockAgent is an agent on engine whose transfer calls need approval.
func clockAgent(t *testing.T, engine int, ap Approver, code string) (*Agent, *transfer) {
	t.Helper()
	tr := &transfer{}
	opts := Options{
		Model:           scripted.New(action("Send.", code), action("Done.", `final_answer("ok")`)),
		Tools:           []tool.Tool{tr},
		RequireApproval: []string{"transfer"},
		Approver:        ap,
		Limits:          executors.Limits{Timeout: clockLimit},
	}
	if open := clockEngines[engine].open; open != nil {
		opts.Executor = open(t)
	}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if opts.Executor != nil {
		// Start the sandbox outside the steps that are timed.
		if _, err := opts.Executor.Execute(context.Background(), "x = 1"); err != nil {
			t.Fatal(err)
		}
	}
	return a, tr
}

// slowApprover approves every call after wait.
func slowApprover(wait time.Duration) Approver {
	return func(ctx context.Context, req ApprovalRequest) (Decision, error) {
		select {
		case <-time.After(wait):
			return Decision{Approve: true, By: "slow"}, nil
		case <-ctx.Done():
			return Decision{}, context.Cause(ctx)
		}
	}
}

// TestApprovalWaitIsNotExecutionTime: a person who takes longer than the
// execution's time limit to approve a call finds the step still running,
// in every engine: the wait does not count.
func TestApprovalWaitIsNotExecutionTime(t *testing.T) {
	for i, eng := range clockEngines {
		t.Run(eng.name, func(t *testing.T) {
			a, tr := clockAgent(t, i, slowApprover(clockWait), `print(transfer("alice", 5))
print("after")`)
			if _, err := a.Run(context.Background(), "pay", RunOptions{}); err != nil {
				t.Fatal(err)
			}
			st := a.Memory().ActionSteps()[0]
			if st.Error != nil {
				t.Fatalf("the step failed: %s: %s", st.Error.Type, st.Error.Message)
			}
			if !strings.Contains(st.Observation, "sent alice") || !strings.Contains(st.Observation, "after") {
				t.Errorf("observation %q", st.Observation)
			}
			if len(tr.calls) != 1 {
				t.Errorf("the tool got %v", tr.calls)
			}
			if len(st.ToolCalls) != 1 || st.ToolCalls[0].Approval == nil || st.ToolCalls[0].Approval.Waited < clockWait {
				t.Errorf("calls %+v", st.ToolCalls)
			}
		})
	}
}

// TestApprovalWaitKeepsTheLimit: the limit still stops code: a loop with
// no approval at the limit, a loop after an approval at the limit plus
// the wait (with a generous margin for a loaded machine), never later.
func TestApprovalWaitKeepsTheLimit(t *testing.T) {
	loop := "while True:\n    pass"
	for i, eng := range clockEngines {
		t.Run(eng.name, func(t *testing.T) {
			for _, c := range []struct {
				name, code string
				min        time.Duration
			}{
				{"no approval", loop, clockLimit},
				{"after an approval", "transfer(\"alice\", 5)\n" + loop, clockLimit + clockWait},
			} {
				a, _ := clockAgent(t, i, slowApprover(clockWait), c.code)
				start := time.Now()
				if _, err := a.Run(context.Background(), "pay", RunOptions{}); err != nil {
					t.Fatal(err)
				}
				took := time.Since(start)
				st := a.Memory().ActionSteps()[0]
				if st.Error == nil || st.Error.Type != "TimeoutError" {
					t.Fatalf("%s: step error %+v", c.name, st.Error)
				}
				// The child of process isolation hears of a pause and its
				// end by message: its paused window may be shorter than
				// the wait by their latency (0.3 ms was seen), so the
				// lower bound allows 50 ms.
				if took < c.min-50*time.Millisecond || took > c.min+20*time.Second {
					t.Errorf("%s: the run took %s, want about %s", c.name, took, c.min)
				}
			}
		})
	}
}

// TestApprovalWaitCancelled: cancelling the run while a call waits for
// approval ends it promptly, in every engine.
func TestApprovalWaitCancelled(t *testing.T) {
	for i, eng := range clockEngines {
		t.Run(eng.name, func(t *testing.T) {
			asked, why := make(chan struct{}), make(chan error, 1)
			never := func(ctx context.Context, req ApprovalRequest) (Decision, error) {
				close(asked)
				<-ctx.Done()
				why <- context.Cause(ctx)
				return Decision{}, context.Cause(ctx)
			}
			a, tr := clockAgent(t, i, never, `transfer("alice", 5)`)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-asked
				time.Sleep(clockLimit + 200*time.Millisecond) // past the limit, which must not end the wait
				cancel()
			}()
			start := time.Now()
			_, err := a.Run(ctx, "pay", RunOptions{})
			if !errors.Is(err, ErrInterrupted) {
				t.Errorf("run ended with %v", err)
			}
			if took := time.Since(start); took > 15*time.Second {
				t.Errorf("the run took %s to stop", took)
			}
			if err := <-why; errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("the wait ended with %v, not with the cancellation", err)
			}
			if len(tr.calls) != 0 {
				t.Errorf("the tool was called: %v", tr.calls)
			}
		})
	}
}

// TestApprovalWaitInManagedAgent: a call waiting for approval in a
// managed agent's step stops the clock of the manager's step that called
// the agent too: neither times out.
func TestApprovalWaitInManagedAgent(t *testing.T) {
	tr := &transfer{}
	limits := executors.Limits{Timeout: clockLimit}
	member, err := New(Options{Name: "payer", Description: "Pays people.", Limits: limits,
		Model: scripted.New(action("Pay.", `print(transfer("bob", 7))`), action("Done.", `final_answer("paid")`)),
		Tools: []tool.Tool{tr}, RequireApproval: []string{"transfer"}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{ManagedAgents: []*Agent{member}, Limits: limits, Approver: slowApprover(clockWait),
		Model: scripted.New(action("Go.", `print(payer(task="pay bob"))`), action("Done.", `final_answer("ok")`))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "pay", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if st := a.Memory().ActionSteps()[0]; st.Error != nil {
		t.Fatalf("the manager's step failed: %s: %s", st.Error.Type, st.Error.Message)
	}
	if len(tr.calls) != 1 {
		t.Errorf("the tool got %v", tr.calls)
	}
}
