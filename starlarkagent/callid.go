package starlarkagent

import (
	"context"
	"fmt"
)

// CallID identifies a tool call within a run: the run (RunOptions.RunID),
// the agent (a managed agent has its own name), the step and the call's
// number within the step, from 1. A run resumed by replay answers the
// calls of its replayed steps from their record (RunOptions.Replay), but
// makes again those the record lacks: a call that was in flight when the
// run stopped, one that failed, every call of a step recorded without
// RunOptions.Record. A tool with side effects uses String as an
// idempotency key to do them once. The numbers are stable when the code
// calls tools in the same order, as it does when it is replayed.
type CallID struct {
	Run   string
	Agent string
	Step  int
	Call  int
}

// String is the key: run/agent/step/call.
func (c CallID) String() string { return fmt.Sprintf("%s/%s/%d/%d", c.Run, c.Agent, c.Step, c.Call) }

type runIDKey struct{}

type callIDKey struct{}

// CallIDFrom returns the CallID of the tool call whose context ctx is; ok
// is false outside a tool call made by an agent's code.
func CallIDFrom(ctx context.Context) (id CallID, ok bool) {
	id, ok = ctx.Value(callIDKey{}).(CallID)
	return id, ok
}

// withCallID numbers a call of the step whose scope ctx carries.
func withCallID(ctx context.Context, agent string) context.Context {
	s := scopeFrom(ctx)
	if s == nil {
		return ctx
	}
	run, _ := ctx.Value(runIDKey{}).(string)
	return context.WithValue(ctx, callIDKey{}, CallID{Run: run, Agent: agent, Step: s.step, Call: int(s.seq.Add(1))})
}
