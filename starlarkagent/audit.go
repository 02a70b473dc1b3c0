package starlarkagent

import (
	"context"
	"log/slog"
)

// The audit trail: every tool call an agent's code (or model) makes, at
// any depth of managed agents, leaves one "tool call" line (who: the
// agent and step; what: the tool and its arguments; the outcome: ok,
// error or denied; the decision on an approval and who made it; the
// duration) on Options.AuditLogger, and each approval decision one line
// of its own. RunOptions.Audit receives the same records, to store them
// with the run (serve adds them to the run's events).

// AuditRecord is one tool call, as the audit trail keeps it.
type AuditRecord struct {
	// Agent is the name of the agent that made the call; Step its action
	// step.
	Agent string
	Step  int
	// Call is the call: its tool, arguments (as they ran, or as asked
	// when denied), result or error, duration and approval.
	Call ToolCall
	// Outcome is "ok", "error" or "denied".
	Outcome string
}

type auditKey struct{}

// auditFor is the audit hook of a run: its own, or that of the run that
// called this agent.
func auditFor(ctx context.Context, opts RunOptions) func(AuditRecord) {
	if opts.Audit != nil {
		return opts.Audit
	}
	f, _ := ctx.Value(auditKey{}).(func(AuditRecord))
	return f
}

// auditLog is where the audit lines go.
func (a *Agent) auditLog() *slog.Logger {
	if a.opts.AuditLogger != nil {
		return a.opts.AuditLogger.With("agent", a.name)
	}
	return a.log
}
