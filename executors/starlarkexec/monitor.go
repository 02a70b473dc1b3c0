package starlarkexec

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/vm/starlark"
)

// monitor enforces the step, recursion and memory limits of one execution.
//
// The execution's generators run on threads of their own (builtins.
// Generators), one thread running at a time: the monitor counts the steps
// of all of them against the one budget, checks each for depth, walks
// their stacks for memory and cancels them with the execution.
//
// go.starlark.net calls OnMaxSteps when a thread reaches its step limit; the
// monitor sets that limit a small interval ahead and uses the callback as a
// periodic check, moving the limit forward each time. Memory is measured by
// walking the values the execution can reach (see sizer), which is precise
// but costs time proportional to the number of values, so walks are paced:
// one is due when the process heap has grown by a slice of the budget since
// the last walk (cheap to read, but it also counts garbage and other
// goroutines, hence only a trigger) and the steps since the last walk have
// paid for it.
//
// An execution does not walk when it starts if the measurement the
// previous one of its state left still bounds what the state can hold:
// see carried.
type monitor struct {
	thread  *starlark.Thread
	globals starlark.StringDict
	limits  executors.Limits
	ctx     context.Context
	budget  *core.Budget

	ticks       uint64
	walkAfter   uint64 // steps before which no paced walk happens
	heapAtWalk  uint64 // process heap at the last walk
	heapAtStart int64  // process heap when the execution began
	heapAtGC    int64  // process heap after the last collection the monitor forced
	lastWalk    int64  // size the last measurement returned
	lastRaw     int64  // what the last walk itself found
	verified    int64  // hidden live memory the last forced collection found
	walkAtGC    int64  // what the walk found at that collection
	unverified  int64  // grants since that collection the walk does not explain
	sample      []metrics.Sample
	allocs      []metrics.Sample // the process's cumulative allocations
	allocsAt    uint64           // allocs when the last walk began
	walkCount   int              // values the last walk visited
	carry       *carried         // the state's record, or nil: walk at the start
	rawAtStart  int64            // the walk the execution started from
	over        int64            // see carried.over
	stop        string           // "steps", "depth", "memory" once a limit is hit
	liveAtAbort int64
	ctxErr      error // runCtx.Err() when the execution ended

	gens    *core.Generators
	counted uint64                      // steps of all threads, as of their last count
	seen    map[*starlark.Thread]uint64 // each thread's steps as of its last count

	mu        sync.Mutex         // guards children and cancelled, for cancel
	children  []*starlark.Thread // generator threads
	cancelled string             // reason, once cancelled
	pruneAt   int                // len(children) at which spawn forgets ended ones
}

// interval is the number of steps between checks: small enough that
// recursion and memory are caught early, large enough to cost nothing.
const interval = 1 << 10

func newMonitor(thread *starlark.Thread, globals starlark.StringDict, limits executors.Limits, ctx context.Context) *monitor {
	m := &monitor{
		thread:  thread,
		globals: globals,
		limits:  limits,
		ctx:     ctx,
		sample:  []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}},
		allocs:  []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}},
	}
	m.budget = &core.Budget{
		Limit:  limits.MaxMemory,
		Done:   ctx.Done(),
		Reason: m.reason,
	}
	m.budget.Measure = m.measure
	m.budget.Pressure = m.pressure
	return m
}

func (m *monitor) install() {
	core.SetBudget(m.thread, m.budget)
	m.seen = map[*starlark.Thread]uint64{m.thread: m.thread.ExecutionSteps()}
	m.gens = &core.Generators{NewThread: m.spawn, Switch: m.switchThreads, MaxDepth: m.limits.MaxDepth}
	core.SetGenerators(m.thread, m.gens)
	m.thread.OnMaxSteps = m.check
	m.thread.SetMaxExecutionSteps(min(interval, m.limits.MaxOperations))
	m.heapAtWalk = m.heap()
	m.heapAtStart, m.heapAtGC = int64(m.heapAtWalk), int64(m.heapAtWalk)
	if c := m.carry; c != nil {
		m.over = c.over
	}
	if c := m.carry; c != nil && c.valid {
		since := int64(m.allocated() - c.allocsAt)
		if since >= 0 && c.live+since <= m.limits.MaxMemory/2 {
			m.budget.Carry(c.live, since)
			m.lastWalk, m.lastRaw, m.walkAtGC = c.live, c.raw, c.raw
			m.allocsAt, m.walkCount = c.allocsAt, c.count
			m.walkAfter = uint64(c.count) * 8
			m.rawAtStart = c.raw
			return
		}
	}
	m.budget.Settle(m.measure())
	m.walkAtGC = m.lastRaw
	m.rawAtStart = m.lastRaw
}

// overAtEnd reports, once the execution has ended, whether it left its
// state holding more than the budget: then the
// step fails with a MemoryError (stopError), as if it had been stopped.
// Within an execution, walks are paced by steps and by the heap's growth,
// and an execution that only adds a little to a large state never
// triggers one; without this, such steps went on growing the state past
// the budget, one after another, each under the pacing (the walk at the
// start of the next step found it, but a walk at the start refuses
// nothing by itself). It walks only when the last walk plus what was
// granted and allocated since can pass the budget.
//
// A state over the budget (a step stopped half-way through building a
// value keeps what it bound) does not fail the steps that follow unless
// they add to it: more than a sixty-fourth of the budget beyond what the
// last failed step left, which steps that pass do not move.
func (m *monitor) overAtEnd() bool {
	limit := m.limits.MaxMemory
	switch {
	case limit <= 0:
		return false
	case m.stop == "memory":
		m.over = max(m.lastRaw, limit+1)
		return false
	}
	since := int64(m.allocated() - m.allocsAt)
	if since >= 0 && m.budget.Live+since <= limit {
		m.over = 0
		return false
	}
	size := m.measure()
	m.budget.Settle(size)
	if m.lastRaw <= limit {
		m.over = 0
		return false
	}
	if m.stop != "" {
		// The step failed for another reason and keeps that error; what
		// it left is allowed to the steps that follow, as after a
		// MemoryError.
		m.over = max(m.over, m.lastRaw)
		return false
	}
	// A step that adds (next to) nothing to what a failed step left over
	// the budget runs. The allowance does not move with the steps that
	// pass, or steps each adding a little less than it would grow the
	// state without end.
	if m.over > 0 && m.lastRaw <= m.over+limit/64 {
		return false
	}
	m.over = m.lastRaw
	m.liveAtAbort = size
	m.stop = "memory"
	return true
}

// carried is what an execution leaves the next one of its state about
// memory, so that a step does not walk the whole state when it starts:
// that walk cost time in proportion to the state (7 ms for a million ints
// kept in a global), whatever the step did.
//
// The next execution starts from the last walk (and the grants since)
// instead of walking, as long as that walk plus everything the process
// has allocated since it began stays under half the budget: what the
// state holds beyond the walk was allocated since, so the sum bounds it
// (/gc/heap/allocs:bytes only grows, and counts allocations ahead of their
// use, by the span). The allocations are the process's, other goroutines'
// and garbage included, so the bound is loose, never low; the budget
// carries it as Slack, and a grant it would take past the limit measures
// first. Past half the budget, the execution walks when it starts, as it
// did before. Within the execution, walks are paced as always (check).
type carried struct {
	valid    bool
	live     int64  // the budget's Live when the execution ended
	raw      int64  // what the last walk found
	allocsAt uint64 // the process's allocations when that walk began
	count    int    // values that walk visited
	over     int64  // what the state held when the last step left it over the budget, or 0
}

// save records, at the end of an execution, what the next one of its
// state may start from.
func (m *monitor) save() {
	if m.carry == nil {
		return
	}
	*m.carry = carried{valid: true, live: m.budget.Live, raw: m.lastRaw, allocsAt: m.allocsAt, count: m.walkCount, over: m.over}
}

// allocated returns the bytes the process has allocated since it began.
func (m *monitor) allocated() uint64 {
	metrics.Read(m.allocs)
	if m.allocs[0].Value.Kind() != metrics.KindUint64 {
		return 1 << 62 // unknown: no record is ever recent enough
	}
	return m.allocs[0].Value.Uint64()
}

func (m *monitor) heap() uint64 {
	metrics.Read(m.sample)
	if m.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m.sample[0].Value.Uint64()
}

// measure walks the reachable values and records when to walk next.
//
// The walk cannot see values held where go.starlark.net exposes nothing: a
// comprehension's list under construction lives on the operand stack, a
// builtin's buffer in Go. The monitor keeps two estimates of that hidden
// memory on top of the walk:
//
//   - verified: what the last collection the monitor forced found live
//     beyond the walk (the live heap's growth since the execution began,
//     minus the walk);
//   - unverified: what was granted since then (builtins.Alloc) and did not
//     show up in the walk, capped by the heap's growth since that
//     collection (nothing more can have become live).
//
// The process heap bounds from above what the execution can hold: the walk,
// the verified part, and the heap's growth since the collection beyond the
// walk's. When that bound passes three quarters of the budget, or the
// estimate passes the budget, the monitor collects garbage and re-verifies,
// paced so that collections cannot repeat without fresh growth (a sixteenth
// of the budget) unless a verified part is at stake. The heap also counts other executions in the process and
// the walk's estimates are not Go's exact sizes, hence only this fallback
// role. Unverified grants may be garbage: they alone never take the
// estimate past the budget.
//
// A comprehension that builds a list of new strings (each granted) grows
// the heap by about 30 MiB between paced walks with the default budget, all
// of it invisible to the walk; before these estimates the collection only
// came once the heap had grown by twice the budget.
func (m *monitor) measure() int64 {
	limit := m.limits.MaxMemory
	gens := m.gens.Threads()
	m.allocsAt = m.allocated()
	// Past twice the budget the walk stops: the answer is known, and
	// below that it is exact, for overAtEnd to compare.
	walk, count := liveSize(append([]*starlark.Thread{m.thread}, gens...), m.globals, 2*limit)
	walk += int64(len(gens)) * core.GeneratorCost
	heap := int64(m.heap())
	// The heap's growth since the last forced collection that the walk's
	// growth does not explain: garbage, or memory the walk cannot see.
	walkGrowth := max(0, walk-m.walkAtGC)
	sinceGC := max(0, heap-m.heapAtGC)
	unexplained := max(0, sinceGC-walkGrowth)
	// Grants since the last measurement that the walk does not explain.
	granted := m.budget.Live - m.lastWalk
	m.unverified = min(m.unverified+max(0, granted-max(0, walk-m.lastRaw)), unexplained)
	// Hidden memory that has since become visible (a comprehension's list,
	// once assigned) is in the walk now.
	verified := max(0, m.verified-walkGrowth)
	size := walk + verified + m.unverified
	if walk <= limit && (walk+verified+unexplained > limit*3/4 || size > limit) {
		// Hidden memory verified earlier may be gone since (a dropped
		// list) without the walk showing it: a stale figure must not
		// refuse a grant, so it is always verified afresh.
		if sinceGC > limit/16 || verified > 0 {
			runtime.GC()
			heap = int64(m.heap())
			m.heapAtGC = heap
			m.verified = max(0, heap-m.heapAtStart-walk)
			m.walkAtGC, m.unverified = walk, 0
			size = walk + m.verified
		} else if size > limit {
			// Too little growth since the last collection to pay for
			// another, and the grants since may be garbage.
			size = walk
		}
	}
	m.lastWalk, m.lastRaw = size, walk
	// The next paced walk waits for eight steps per value visited, which
	// keeps walking under a few percent of the run time.
	m.walkAfter = m.counted + uint64(count)*8
	m.walkCount = count
	m.budget.Slack = 0
	m.heapAtWalk = uint64(heap)
	return size
}

// pressure tells the budget to measure before its next grant when the
// process heap has grown by more than three quarters of the budget since
// the execution began (builtins.Budget.Pressure): then the execution may
// be near its limit whatever the grants say, and measure verifies it.
func (m *monitor) pressure() bool {
	return int64(m.heap())-m.heapAtStart+m.budget.Slack > m.limits.MaxMemory*3/4
}

func (m *monitor) check(thread *starlark.Thread) {
	steps := m.count(thread)
	if steps >= m.limits.MaxOperations {
		m.abort("steps")
		return
	}
	if core.CallDepth(thread) > m.limits.MaxDepth {
		m.abort("depth")
		return
	}
	m.ticks++
	if m.ticks%4 == 0 && steps >= m.walkAfter {
		grown := int64(m.heap()) - int64(m.heapAtWalk)
		if grown > m.limits.MaxMemory/8 {
			m.budget.Settle(m.measure())
			if m.budget.Live > m.limits.MaxMemory {
				m.liveAtAbort = m.budget.Live
				m.abort("memory")
				return
			}
		}
	}
	m.arm(thread, steps)
}

// count adds the steps thread made since its last count to the total,
// which it returns.
func (m *monitor) count(thread *starlark.Thread) uint64 {
	now := thread.ExecutionSteps()
	m.counted += now - m.seen[thread]
	m.seen[thread] = now
	return m.counted
}

// arm sets when thread checks next: after interval steps, or when the
// steps left to the execution, counted at total, run out.
func (m *monitor) arm(thread *starlark.Thread, total uint64) {
	thread.SetMaxExecutionSteps(thread.ExecutionSteps() + min(interval, m.limits.MaxOperations-total))
}

// steps returns the steps of the execution's threads. Call it once the
// execution has ended.
func (m *monitor) steps() uint64 { return m.count(m.thread) }

// spawn creates the thread of a generator's body (builtins.Generators).
func (m *monitor) spawn(*starlark.Thread) *starlark.Thread {
	th := &starlark.Thread{Name: m.thread.Name, Print: m.thread.Print}
	for _, k := range []string{ctxKey, contract.DeadlineKey, contract.StdoutKey, contract.ExecutorGlobalsKey, contract.ReaderKey, resultsKey, toolCallsKey} {
		if v := m.thread.Local(k); v != nil {
			th.SetLocal(k, v)
		}
	}
	core.SetBudget(th, m.budget)
	core.ShareRepr(th, m.thread) // one repr depth and export limit for the execution
	th.OnMaxSteps = m.check
	if len(m.children) >= m.pruneAt {
		// Forget the threads of generators that have ended; their steps
		// were counted when they last gave control back.
		live := m.gens.Threads()
		seen := make(map[*starlark.Thread]uint64, len(live)+1)
		seen[m.thread] = m.seen[m.thread]
		for _, c := range live {
			seen[c] = m.seen[c]
		}
		m.seen = seen
		m.mu.Lock()
		m.children = live
		m.mu.Unlock()
		m.pruneAt = 2*len(live) + 64
	}
	m.seen[th] = 0
	m.mu.Lock()
	m.children = append(m.children, th)
	reason := m.cancelled
	m.mu.Unlock()
	if reason != "" {
		th.Cancel(reason)
	}
	return th
}

// switchThreads counts the steps of the thread that stopped running and
// arms the one that resumes (builtins.Generators.Switch).
func (m *monitor) switchThreads(from, to *starlark.Thread) {
	total := m.count(from)
	if total >= m.limits.MaxOperations {
		m.abort("steps")
		return
	}
	m.count(to)
	m.arm(to, total)
}

// closeGenerators ends the suspended generators of the execution, once
// no code of it runs.
func (m *monitor) closeGenerators() { m.gens.Close() }

func (m *monitor) abort(reason string) {
	if m.stop == "" {
		m.stop = reason
	}
	m.cancel(reason)
}

// cancel stops the execution's threads at their next step. It may be
// called from any goroutine.
func (m *monitor) cancel(reason string) {
	m.mu.Lock()
	if m.cancelled == "" {
		m.cancelled = reason
	}
	children := m.children
	m.mu.Unlock()
	m.thread.Cancel(reason)
	for _, th := range children {
		th.Cancel(reason)
	}
}

// reason says why the execution's context ended.
func (m *monitor) reason() string {
	if executors.TimedOut(m.ctx) || errors.Is(m.ctxErr, context.DeadlineExceeded) {
		return "timeout"
	}
	return "cancelled"
}

func (m *monitor) timeoutMessage() string {
	if m.reason() == "timeout" {
		return fmt.Sprintf("execution exceeded the time limit of %s and was stopped", m.limits.Timeout)
	}
	return "execution was cancelled"
}

// stopError returns the Python exception for a limit the monitor enforced
// or for the end of the context, or nil.
func (m *monitor) stopError() error {
	switch m.stop {
	case "steps":
		return core.Errorf(pyexc.StepLimitError, "execution exceeded the limit of %d operations and was stopped; raise it with --max-operations (Limits.MaxOperations) if the work is intended, or make the code do less", m.limits.MaxOperations)
	case "depth":
		return core.Errorf(pyexc.RecursionError, "maximum recursion depth exceeded (limit %d calls)", m.limits.MaxDepth)
	case "memory":
		return core.Errorf(pyexc.MemoryError, "execution exceeded the memory limit of %s (about %s in use) and was stopped",
			core.FormatBytes(m.limits.MaxMemory), core.FormatBytes(m.liveAtAbort))
	}
	if m.ctxErr != nil {
		return core.Errorf(pyexc.TimeoutError, "%s", m.timeoutMessage())
	}
	return nil
}
