package starlarkagent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// Span attributes, from the OpenTelemetry GenAI semantic conventions where
// they have a name for the thing, and star_agent.* where they do not.
const (
	attrOperation        = attribute.Key("gen_ai.operation.name")
	attrAgentName        = attribute.Key("gen_ai.agent.name")
	attrRequestModel     = attribute.Key("gen_ai.request.model")
	attrInputTokens      = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens     = attribute.Key("gen_ai.usage.output_tokens")
	attrToolName         = attribute.Key("gen_ai.tool.name")
	attrReplayed         = attribute.Key("star_agent.tool.replayed")
	attrErrorType        = attribute.Key("error.type")
	attrRunState         = attribute.Key("star_agent.run.state")
	attrStep             = attribute.Key("star_agent.step")
	attrEngine           = attribute.Key("star_agent.engine")
	attrInterpreterSteps = attribute.Key("star_agent.interpreter_steps")
)

// setError marks a span as failed, with error.type set to the error's
// most specific known class.
func setError(span trace.Span, err error) {
	typ := "_OTHER"
	var ee *executors.ExecError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, ErrInterrupted):
		typ = "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		typ = "timeout"
	case errors.As(err, &ee):
		typ = ee.Type
	default:
		typ = fmt.Sprintf("%T", errors.Unwrap(err))
		if typ == "<nil>" {
			typ = fmt.Sprintf("%T", err)
		}
	}
	span.SetAttributes(attrErrorType.String(typ))
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// instrumented wraps a tool given to the executor: each call gets an
// execute_tool span and a log line, and is recorded in the step.
type instrumented struct {
	t    tool.Tool
	spec tool.Spec
	a    *Agent
}

func instrument(t tool.Tool, a *Agent) tool.Tool {
	return &instrumented{t: t, spec: t.Spec(), a: a}
}

// Spec implements tool.Tool.
func (w *instrumented) Spec() tool.Spec { return w.spec }

// Call implements tool.Tool. A call that needs approval waits here for
// the approver's decision. Every call leaves one audit line: the tool, its
// arguments, the outcome, the decision if any, and the duration.
func (w *instrumented) Call(ctx context.Context, args map[string]any) (any, error) {
	ctx, span := w.a.tracer.Start(ctx, "execute_tool "+w.spec.Name, trace.WithAttributes(
		attrOperation.String("execute_tool"),
		attrToolName.String(w.spec.Name),
		attrAgentName.String(w.a.name),
	))
	defer span.End()
	start := time.Now()
	var (
		out      any
		err      error
		approval *Approval
	)
	callCtx := withCallID(ctx, w.a.name)
	id, _ := CallIDFrom(callCtx)
	rec := recorderFrom(ctx)
	if v, ok := rec.replayed(id.Call, w.spec.Name, args); ok {
		// A call of a replayed step, answered from its record: it was
		// made (and approved, and audited) the first time.
		rec.record(id.Call, w.spec.Name, args, v, false)
		span.SetAttributes(attrReplayed.Bool(true))
		if s := scopeFrom(ctx); s != nil {
			s.addCall(ToolCall{Name: w.spec.Name, Arguments: args, Result: v})
		}
		return v, nil
	}
	if w.a.needsApproval(w.spec) {
		args, approval, err = w.approveOrDeny(callCtx, args)
	}
	if err == nil {
		out, err = w.t.Call(callCtx, args)
	}
	rec.record(id.Call, w.spec.Name, args, out, err != nil)
	call := ToolCall{Name: w.spec.Name, Arguments: args, Result: out, Duration: time.Since(start), Approval: approval}
	if approval != nil && !approval.Approved {
		call.Arguments = approval.requested
	}
	step := 0
	var audit func(AuditRecord)
	if s := scopeFrom(ctx); s != nil {
		step = s.step
		if s.r != nil {
			audit = s.r.audit
		}
	} else {
		audit, _ = ctx.Value(auditKey{}).(func(AuditRecord))
	}
	attrs := []any{"tool", w.spec.Name, "step", step, "arguments", clip(pyRepr(call.Arguments), 500), "duration", call.Duration}
	if approval != nil {
		attrs = append(attrs, "approval", approval.ID, "approved", approval.Approved, "decided_by", approval.By)
	}
	outcome := "ok"
	if err != nil {
		call.Error = err.Error()
		setError(span, err)
		outcome = "error"
		var denied *DeniedError
		if errors.As(err, &denied) {
			outcome = "denied"
		}
		w.a.auditLog().Info("tool call", append(attrs, "outcome", outcome, "error", err)...)
	} else {
		w.a.auditLog().Info("tool call", append(attrs, "outcome", outcome)...)
	}
	if audit != nil {
		audit(AuditRecord{Agent: w.a.name, Step: step, Call: call, Outcome: outcome})
	}
	if s := scopeFrom(ctx); s != nil {
		s.addCall(call)
	}
	return out, err
}

// approveOrDeny is approve, keeping the requested arguments in the record
// of a denied call.
func (w *instrumented) approveOrDeny(ctx context.Context, args map[string]any) (map[string]any, *Approval, error) {
	got, rec, err := w.approve(ctx, args)
	if err != nil {
		rec.requested = args
		return args, rec, err
	}
	return got, rec, nil
}
