package core

import (
	"fmt"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Budget is the memory and cancellation state of one execution, attached to
// its thread. go.starlark.net has no allocator hook, so the engine combines
// two defences: every builtin that can produce a large value asks Alloc
// before allocating, and the engine periodically measures the live size of
// the values the execution can reach (Measure).
type Budget struct {
	// Limit is the number of bytes the execution may hold.
	Limit int64
	// Live is the last measured size of reachable values.
	Live int64
	// Slack bounds what the execution may hold beyond Live that no
	// measurement has seen. The engine sets it when it starts an execution
	// from the measurement an earlier one left instead of measuring afresh
	// (what the process allocated since then, all of which may be live); a
	// measurement clears it. A grant that Live+Slack would take past the
	// limit measures first, so that Slack never refuses a grant by itself.
	Slack int64
	// Measure recomputes Live; set by the engine. May be nil.
	Measure func() int64
	// Done is closed when the execution must stop (deadline, cancellation).
	Done <-chan struct{}
	// Reason says why Done was closed ("timeout", "cancelled").
	Reason func() string
	// Pressure, if set, is asked after every eighth of the limit granted
	// whether to measure now, whatever Live says. Grants may undercount
	// (a builder's buffer slack, values made by user code), and the
	// engine's periodic measurement is paced by interpreter steps, which
	// a loop of few steps calling builtins that build large values hardly
	// makes: without this, such a loop held half again its budget before
	// a grant was refused.
	Pressure func() bool

	pending   int64  // granted within the current builtin call
	pendingAt uint64 // the thread's step count when pending began
	granted   int64  // granted since Pressure was last called
}

const budgetKey = "star-agent.budget"

// SetBudget attaches b to thread.
func SetBudget(thread *starlark.Thread, b *Budget) { thread.SetLocal(budgetKey, b) }

// BudgetOf returns the budget attached to thread, or nil.
func BudgetOf(thread *starlark.Thread) *Budget {
	if thread == nil {
		return nil
	}
	b, _ := thread.Local(budgetKey).(*Budget)
	return b
}

// Alloc reports a MemoryError if allocating n more bytes would take the
// execution over its budget. Builtins call it before any allocation whose
// size depends on their arguments. It re-measures before refusing, so
// garbage freed since the last measurement does not count.
func Alloc(thread *starlark.Thread, n int64) error {
	b := BudgetOf(thread)
	if b == nil || b.Limit <= 0 {
		if n > 1<<30 {
			return Errorf(pyexc.MemoryError, "allocation of %d bytes refused", n)
		}
		return nil
	}
	if n < 0 || n > b.Limit {
		if b.Slack > 0 && b.Measure != nil {
			// The error says what is in use: measured, not carried over.
			b.measure(thread)
		}
		return memoryError(b, n)
	}
	// The step counter does not move while a builtin runs: grants made at
	// another step count belong to a call that has returned.
	if steps := thread.ExecutionSteps(); steps != b.pendingAt {
		b.pending, b.pendingAt = 0, steps
	}
	// What is granted counts as live until the next measurement, so that
	// many grants in a row cannot add up past the limit between walks.
	// A measurement taken here keeps the grants made earlier in the same
	// builtin call: they may be the builtin's own buffer, which no walk can
	// see.
	if b.granted += n; b.Pressure != nil && b.granted > b.Limit/8 {
		b.granted = 0
		if b.Pressure() && b.Measure != nil {
			b.measure(thread)
		}
	}
	if b.Live+b.Slack+n > b.Limit && b.Measure != nil {
		b.measure(thread)
	}
	if b.Live+n > b.Limit {
		return memoryError(b, n)
	}
	b.Live += n
	b.pending += n
	return nil
}

// measure replaces Live by a measurement, keeping the grants of the
// builtin call in progress.
func (b *Budget) measure(thread *starlark.Thread) {
	if steps := thread.ExecutionSteps(); steps != b.pendingAt {
		b.pending, b.pendingAt = 0, steps
	}
	b.Live = b.Measure() + b.pending
	b.Slack = 0
}

// Settle records a measurement taken between interpreter steps, when no
// builtin holds memory of its own.
func (b *Budget) Settle(live int64) {
	b.Live = live
	b.pending = 0
	b.Slack = 0
}

// Carry starts the budget from a measurement an earlier execution left:
// live is what it found (plus what was granted since), slack what the
// process may have allocated since it was taken (see Slack).
func (b *Budget) Carry(live, slack int64) {
	b.Live = live
	b.pending = 0
	b.Slack = max(slack, 0)
}

func memoryError(b *Budget, n int64) error {
	return Errorf(pyexc.MemoryError, "allocating %s would exceed the memory limit of %s (%s in use)",
		FormatBytes(n), FormatBytes(b.Limit), FormatBytes(b.Live))
}

// Interrupted returns an error if the execution must stop. Builtins whose
// running time depends on their arguments (sorting, joining, searching)
// call it every few thousand iterations so that a deadline is honoured
// inside them.
func Interrupted(thread *starlark.Thread) error {
	b := BudgetOf(thread)
	if b == nil || b.Done == nil {
		return nil
	}
	select {
	case <-b.Done:
		reason := "cancelled"
		if b.Reason != nil {
			reason = b.Reason()
		}
		return &Interrupt{Reason: reason}
	default:
		return nil
	}
}

// Interrupt is the error of an execution stopped from outside (timeout,
// cancellation). User code cannot catch it.
type Interrupt struct{ Reason string }

func (e *Interrupt) Error() string { return "execution interrupted: " + e.Reason }

// FormatBytes renders a byte count for people: "256 MiB".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
