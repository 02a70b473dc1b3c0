package starlarkagent

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// Approval of tool calls: a tool whose Spec.RequiresApproval is set, or
// whose name matches one of Options.RequireApproval, is not called until
// the run's Approver decides. The wait happens inside the tool call, where
// the code (or the tool-calling model) made it, so every engine and
// sandbox waits the same way: a call bridged from a sandbox is simply a
// call that takes long to return. A denial is the call's error, which code
// can catch as ToolError and a tool-calling model reads as the call's
// answer. The wait does not count against the execution's time limit
// (executors.Limits.Timeout): the approver's own timeout bounds it, and
// the run's context, whose end stops it at once.

// ApprovalRequest is a tool call waiting for a decision.
type ApprovalRequest struct {
	// ID identifies the request; it is unique within the process.
	ID string `json:"id"`
	// Agent is the name of the agent whose code (or model) made the call.
	Agent string `json:"agent"`
	// Tool and Arguments are the call, its arguments bound to the tool's
	// input names.
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	// Step is the number of the action step that made the call.
	Step int `json:"step"`
	// Python is the call as Python, tool(arg=…), its arguments in the
	// order of the tool's inputs: what to show a person who decides.
	Python string `json:"python"`
}

// Decision is an approver's answer.
type Decision struct {
	// Approve lets the call run; otherwise it is denied with Reason.
	Approve bool   `json:"approve"`
	Reason  string `json:"reason,omitempty"`
	// Arguments, when set on an approval, replace the call's arguments
	// (they are checked against the tool's inputs as the call's were).
	Arguments map[string]any `json:"arguments,omitempty"`
	// By names who decided, for the audit trail ("terminal", a tenant).
	By string `json:"by,omitempty"`
}

// Approver decides a tool call that needs approval. It may block until a
// person answers; ctx is the call's, cancelled when the run or the
// execution ends. An error denies the call with the error as reason.
type Approver func(ctx context.Context, req ApprovalRequest) (Decision, error)

// DeniedError is the error of a call the operator denied. The model reads
// it as "denied by the operator: <reason>".
type DeniedError struct {
	Tool   string
	Reason string
}

func (e *DeniedError) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = "no reason given"
	}
	return "denied by the operator: " + reason
}

// Approval records the decision on a call that needed approval, in the
// call's record (ToolCall.Approval) and so in memory and the audit trail.
type Approval struct {
	ID       string        `json:"id"`
	Approved bool          `json:"approved"`
	Reason   string        `json:"reason,omitempty"`
	By       string        `json:"by,omitempty"`
	Edited   bool          `json:"edited,omitempty"`
	Waited   time.Duration `json:"waited_ns"`

	requested map[string]any // the arguments of a denied call
}

// checkApprovalPatterns reports a pattern of Options.RequireApproval that
// path.Match cannot read.
func checkApprovalPatterns(patterns []string) error {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("starlarkagent: approval pattern %q: %w", p, err)
		}
	}
	return nil
}

// needsApproval reports whether a call of spec waits for a decision.
func (a *Agent) needsApproval(spec tool.Spec) bool {
	if spec.RequiresApproval {
		return true
	}
	for _, p := range a.opts.RequireApproval {
		if ok, _ := path.Match(p, spec.Name); ok {
			return true
		}
	}
	return false
}

// approverKey carries the approver of the run in progress to the runs of
// its managed agents, which have none of their own.
type approverKey struct{}

// approverFor is the approver of a run: the run's own, the agent's, or the
// one of the run that called this agent.
func (a *Agent) approverFor(ctx context.Context, opts RunOptions) Approver {
	if opts.Approver != nil {
		return opts.Approver
	}
	if a.opts.Approver != nil {
		return a.opts.Approver
	}
	ap, _ := ctx.Value(approverKey{}).(Approver)
	return ap
}

// newApprovalID returns "ap_" and 16 random hex digits.
// approvalID is the id of the approval of the call whose context ctx is:
// derived from its CallID when it has one, so that the same call asked
// again (a run resumed on another server, which replays the step) has the
// same id, and a decision made meanwhile still applies to it.
func approvalID(ctx context.Context) string {
	if id, ok := CallIDFrom(ctx); ok && id.Run != "" {
		sum := sha256.Sum256([]byte(id.String()))
		return "ap_" + hex.EncodeToString(sum[:8])
	}
	return newApprovalID()
}

func newApprovalID() string {
	var b [8]byte
	rand.Read(b[:])
	return "ap_" + hex.EncodeToString(b[:])
}

// errNoApprover is the reason of a denial when nobody can decide.
var errNoApprover = errors.New("this tool needs approval and the run has no approver")

// approve asks the approver about a call of w's tool and returns the
// arguments to call it with, or the error that denies it, with the record
// of the decision.
func (w *instrumented) approve(ctx context.Context, args map[string]any) (map[string]any, *Approval, error) {
	scope := scopeFrom(ctx)
	var ap Approver
	step := 0
	if scope != nil && scope.r != nil {
		ap, step = scope.r.approver, scope.step
	} else {
		ap, _ = ctx.Value(approverKey{}).(Approver)
		if ap == nil {
			ap = w.a.opts.Approver
		}
	}
	req := ApprovalRequest{ID: approvalID(ctx), Agent: w.a.name, Tool: w.spec.Name, Arguments: args, Step: step,
		Python: pythonCall(w.spec, args)}
	rec := &Approval{ID: req.ID}
	start := time.Now()
	var d Decision
	err := errNoApprover
	if ap != nil {
		// The wait is not the execution's time: its clock stops.
		resume := executors.PauseClock(ctx)
		d, err = ap(ctx, req)
		resume()
	}
	rec.Waited = time.Since(start)
	switch {
	case err != nil:
		rec.Reason = err.Error()
		if ctx.Err() != nil {
			rec.Reason = "no decision before the call was stopped: " + context.Cause(ctx).Error()
		}
		rec.By = d.By
		w.a.auditLog().Info("approval denied", "tool", w.spec.Name, "approval", req.ID, "step", step, "reason", rec.Reason, "waited", rec.Waited)
		return nil, rec, &DeniedError{Tool: w.spec.Name, Reason: rec.Reason}
	case !d.Approve:
		rec.Reason, rec.By = d.Reason, d.By
		w.a.auditLog().Info("approval denied", "tool", w.spec.Name, "approval", req.ID, "step", step, "by", d.By, "reason", d.Reason, "waited", rec.Waited)
		return nil, rec, &DeniedError{Tool: w.spec.Name, Reason: d.Reason}
	}
	rec.Approved, rec.Reason, rec.By = true, d.Reason, d.By
	if d.Arguments != nil {
		bound, err := tool.Bind(w.spec, nil, d.Arguments)
		if err != nil {
			rec.Approved = false
			rec.Reason = "the operator's edited arguments do not fit the tool: " + err.Error()
			return nil, rec, &DeniedError{Tool: w.spec.Name, Reason: rec.Reason}
		}
		args, rec.Edited = bound, true
	}
	w.a.auditLog().Info("approval granted", "tool", w.spec.Name, "approval", req.ID, "step", step, "by", d.By, "edited", rec.Edited, "waited", rec.Waited)
	return args, rec, nil
}

// pythonCall writes a call as Python keyword arguments in the order of
// the tool's inputs, leaving out the optional ones not given.
func pythonCall(spec tool.Spec, args map[string]any) string {
	var b strings.Builder
	b.WriteString(spec.Name)
	b.WriteByte('(')
	n := 0
	for _, in := range spec.Inputs {
		v, ok := args[in.Name]
		if !ok || (v == nil && in.Nullable) {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(in.Name + "=" + pyRepr(v))
	}
	b.WriteByte(')')
	return b.String()
}
