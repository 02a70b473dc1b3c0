package serve

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/starlarkagent"
)

// run is a run that has not left memory yet: queued, running, or ended
// with its last event not yet committed. Its events are kept here in full,
// so that a client connecting late gets them all without a database read
// racing the writer.
type run struct {
	id      string
	task    string
	req     RunRequest
	created time.Time

	// cancel stops the run, queued or running; its cause says why
	// (errCancelled, errShutdown).
	cancel context.CancelCauseFunc
	ctx    context.Context

	mu      sync.Mutex
	state   State
	started time.Time
	ended   time.Time
	errText string
	events  []storedEvent
	changed chan struct{} // closed and replaced when an event is added
	result  json.RawMessage
	summary endEvent
	stepN   int
	// tenant owns the run ("" without tokens); tenantCfg is its quotas.
	tenant    string
	tenantCfg *Tenant
	// pending are the calls waiting for approval, by id, in order.
	pending map[string]*pendingApproval
	order   []string

	// attempt is the run's attempt in the database, which fences its
	// writes; lost is set once another server took it over (or this
	// one let it go at shutdown, for another to resume).
	attempt int64
	lost    atomic.Bool
	// released is set when the run left this server without ending
	// (lost, or handed over at shutdown): its streams follow it in the
	// database. refused is the first of its events the database refused
	// (the run was lost by then; 0: none): streams may have sent it and
	// the ones after, which another server's events replace.
	released atomic.Bool
	refused  atomic.Int64
	// tokens are what the run's steps spent so far, counted against its
	// tenant's daily quota until stored says the store has them.
	tokens atomic.Int64
	stored atomic.Bool
	// resume is set on a run taken over from another server.
	resume *resumeState
}

// fence is what the run's writes are checked against.
func (s *Server) fence(r *run) fence {
	return fence{run: r.id, attempt: r.attempt, lost: func() { s.lose(r) }}
}

// lose stops a run this server no longer owns, without writing to it.
func (s *Server) lose(r *run) {
	if r.lost.CompareAndSwap(false, true) {
		s.log.Warn("run taken over by another server: stopping it here", "run", r.id, "attempt", r.attempt)
		r.cancel(errLost)
	}
}

var (
	errCancelled = errors.New("cancelled")
	errShutdown  = errors.New("the server is shutting down")
	errLost      = errors.New("the run was taken over by another server")
)

// newRunID returns "r_" and 26 base-32 characters: 48 bits of
// milliseconds (so that ids sort by creation time) and 80 random bits (so
// that they cannot be guessed).
func newRunID(now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	rand.Read(b[6:])
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz" // Crockford's, lower case
	var out [26]byte
	// 128 bits as 26 5-bit groups (the first holds 3 bits).
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	for i := 25; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return "r_" + string(out[:])
}

// validRunID reports whether id has the shape newRunID gives, so that
// junk never reaches the database.
func validRunID(id string) bool {
	if len(id) != 28 || !strings.HasPrefix(id, "r_") {
		return false
	}
	for _, c := range id[2:] {
		if !strings.ContainsRune("0123456789abcdefghjkmnpqrstvwxyz", c) {
			return false
		}
	}
	return true
}

// add appends an event, stores it and wakes the watchers.
func (s *Server) add(r *run, typ string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": "event not representable as JSON: " + err.Error()})
	}
	r.mu.Lock()
	ev := storedEvent{ID: int64(len(r.events) + 1), Type: typ, Data: b}
	r.events = append(r.events, ev)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	f := s.fence(r)
	f.lost = func() {
		for {
			old := r.refused.Load()
			if old != 0 && old <= ev.ID || r.refused.CompareAndSwap(old, ev.ID) {
				break
			}
		}
		s.lose(r)
	}
	s.store.addEvent(f, ev)
}

// since returns the events after id, whether the run has ended (and all
// its events are in the list), and a channel closed at the next event.
func (r *run) since(id int64) ([]storedEvent, bool, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []storedEvent
	if id < int64(len(r.events)) {
		out = r.events[max(id, 0):]
	}
	return out, r.state.Final(), r.changed
}

// execute runs r from the queue to its end. It never panics: a failure of
// one run must not take the others down.
func (s *Server) execute(r *run) {
	defer s.runs.Done()
	var res *starlarkagent.RunResult
	state := StateError
	var errText string
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("run panicked", "run", r.id, "panic", p, "stack", string(debug.Stack()))
			state, errText, res = StateError, fmt.Sprintf("internal error: %v (the server log has the stack)", p), nil
		}
		s.finish(r, state, errText, res)
	}()

	// Wait for a slot.
	if r.ctx.Err() != nil {
		state, errText = s.stoppedState(r), s.stoppedWhy(r, "queued")
		return
	}
	s.metrics.inFlight.WithLabelValues(string(StateQueued)).Inc()
	select {
	case s.slots <- struct{}{}:
	case <-r.ctx.Done():
		s.metrics.inFlight.WithLabelValues(string(StateQueued)).Dec()
		state, errText = s.stoppedState(r), s.stoppedWhy(r, "queued")
		return
	}
	s.metrics.inFlight.WithLabelValues(string(StateQueued)).Dec()
	defer func() { <-s.slots }()
	s.metrics.inFlight.WithLabelValues(string(StateRunning)).Inc()
	defer s.metrics.inFlight.WithLabelValues(string(StateRunning)).Dec()

	now := time.Now()
	r.mu.Lock()
	r.state = StateRunning
	if r.started.IsZero() {
		r.started = now
	}
	r.mu.Unlock()
	s.store.setRunning(s.fence(r), now)
	// replayed counts the action steps a resumed run replays: their
	// events are stored already.
	replayed := 0
	if r.resume != nil {
		replayed = len(r.resume.answers)
		s.add(r, "state", stateEvent{State: StateRunning, Time: now.UTC(), Attempt: r.attempt, Replayed: replayed})
	} else {
		s.add(r, "state", stateEvent{State: StateRunning, Time: now.UTC()})
		// The agent keeps the task step to itself (no StepEnd): say it here.
		s.add(r, "task", taskEvent{Task: r.task, AdditionalArgs: r.req.AdditionalArgs})
	}
	live := func(step int) bool { return step > replayed }

	ctx := r.ctx
	if s.opts.RunTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.opts.RunTimeout, fmt.Errorf("the run timeout (%s) was reached", s.opts.RunTimeout))
		defer cancel()
	}
	var modelID string
	type countedExecutor struct {
		kind string
		e    interface{ Starts() int }
	}
	var counted []countedExecutor
	agent, err := s.opts.NewAgent(ctx, AgentRequest{
		RunID:   r.id,
		Owner:   map[string]string{LabelReplica: s.replica, LabelRun: r.id},
		Tenant:  r.tenant,
		Task:    r.task,
		Imports: r.req.Imports,
		WrapModel: func(m providers.Model) providers.Model {
			modelID = m.ModelID()
			if r.resume != nil {
				m = &replayModel{Model: m, answers: r.resume.answers}
			}
			return s.metrics.timed(m)
		},
		AddExecutor: func(kind string, e executors.Executor) {
			if c, ok := e.(interface{ Starts() int }); ok {
				counted = append(counted, countedExecutor{kind, c})
			}
		},
	})
	if err != nil {
		errText = "could not build the agent: " + err.Error()
		if ctx.Err() != nil {
			state, errText = s.stoppedState(r), s.stoppedWhy(r, "starting")
		}
		return
	}
	defer func() {
		for _, c := range counted {
			n := c.e.Starts()
			s.metrics.sandboxStarts.WithLabelValues(c.kind).Add(float64(n))
			if n > 1 {
				s.metrics.sandboxRe.WithLabelValues(c.kind).Add(float64(n - 1))
			}
		}
		// Closing the agent closes its executors: no sandbox outlives
		// its run.
		if err := agent.Close(); err != nil {
			s.log.Warn("closing the run's agent", "run", r.id, "error", err)
		}
	}()

	budget := tenantBudget(s.runBudget(r.req), r.tenantCfg)
	var replay []*starlarkagent.StepRecord
	if r.resume != nil {
		replay = r.resume.records
	}
	opts := starlarkagent.RunOptions{RunID: r.id, Record: true, MaxSteps: r.req.MaxSteps, AdditionalArgs: r.req.AdditionalArgs, Approver: s.approver(r), Budget: &budget, Replay: replay,
		Audit: func(a starlarkagent.AuditRecord) {
			if !live(a.Step) {
				return
			}
			c := a.Call
			s.add(r, "audit", auditEvent{Tenant: r.tenant, Agent: a.Agent, Step: a.Step, Tool: c.Name, Arguments: pyvalue.JSON{V: c.Arguments},
				Outcome: a.Outcome, Error: c.Error, Duration: c.Duration.Seconds(), Approval: c.Approval, Time: time.Now().UTC()})
		}}
	for ev := range agent.Stream(ctx, r.task, opts) {
		switch ev := ev.(type) {
		case *starlarkagent.ModelDelta:
			if live(ev.Step) {
				s.add(r, "delta", deltaEvent{Step: ev.Step, Content: ev.Content})
			}
		case *starlarkagent.CodeAction:
			if live(ev.Step) {
				s.add(r, "code", codeEvent{Step: ev.Step, Code: ev.Code})
			}
		case *starlarkagent.ToolCallEvent:
			c := ev.Call
			if live(ev.Step) {
				s.add(r, "tool_call", toolCallEvent{Step: ev.Step, Name: c.Name, Arguments: c.Arguments, Result: c.Result, Error: c.Error, Duration: c.Duration.Seconds(), Approval: c.Approval})
			}
		case *starlarkagent.Observation:
			if live(ev.Step) {
				s.add(r, "observation", observationEvent{Step: ev.Step, Text: ev.Text})
			}
		case *starlarkagent.StepEnd:
			if a, ok := ev.Step.(*starlarkagent.ActionStep); ok && !live(a.Number) {
				continue
			}
			s.stepEnded(r, modelID, ev.Step)
		case *starlarkagent.FinalAnswer:
			s.add(r, "final_answer", finalAnswerEvent{Output: pyvalue.JSON{V: ev.Output}, Repr: reprOf(ev.Output)})
		case *starlarkagent.RunEnd:
			res = ev.Result
		}
	}
	if res == nil {
		errText = "the agent ended without a result"
		return
	}
	switch {
	case res.Err == nil && res.State == starlarkagent.StateSuccess:
		state = StateSuccess
	case res.Err == nil && res.State == starlarkagent.StateMaxSteps:
		state = StateMaxSteps
	case res.State == starlarkagent.StateBudgetExceeded:
		state, errText = StateBudgetExceeded, res.Err.Error()
	case r.ctx.Err() != nil:
		state, errText = s.stoppedState(r), s.stoppedWhy(r, "running")
	default:
		state = StateError
		if res.Err != nil {
			errText = res.Err.Error()
		}
		if c := context.Cause(ctx); c != nil && ctx.Err() != nil {
			errText = c.Error()
		}
	}
}

// stepEnded reports a step: its error first (if any), then the step.
func (s *Server) stepEnded(r *run, modelID string, st starlarkagent.Step) {
	s.metrics.step(modelID, st)
	u := stepUsage(st)
	r.tokens.Add(int64(u.InputTokens + u.OutputTokens))
	switch st := st.(type) {
	case *starlarkagent.TaskStep:
		return // sent as the task event when the run started
	case *starlarkagent.ActionStep:
		if e := st.Error; e != nil {
			s.add(r, "error", errorEvent{Step: st.Number, Kind: e.Kind, Type: e.Type, Message: e.Message, Line: e.Line, Source: e.Source})
		}
	}
	data, err := stepJSON(st)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"type": string(st.Kind()), "error": "step not representable as JSON: " + err.Error()})
	}
	s.add(r, "step", json.RawMessage(data))
	// The store keeps what a replay of the step needs, too.
	if stored, err := storedStepJSON(st); err == nil {
		data = stored
	}
	r.mu.Lock()
	r.stepN++
	n := r.stepN
	r.mu.Unlock()
	s.store.addStep(s.fence(r), n, string(st.Kind()), data)
}

// stoppedState is the state of a run its context stopped.
func (s *Server) stoppedState(r *run) State {
	if c := context.Cause(r.ctx); errors.Is(c, errShutdown) || errors.Is(c, errLost) {
		return StateInterrupted
	}
	return StateCancelled
}

func (s *Server) stoppedWhy(r *run, while string) string {
	if errors.Is(context.Cause(r.ctx), errShutdown) {
		return "the server shut down while the run was " + while
	}
	if errors.Is(context.Cause(r.ctx), errLost) {
		return "another server took the run over while it was " + while
	}
	return "cancelled by POST /v1/runs/" + r.id + "/cancel while the run was " + while
}

// finish records how r ended, with its end event, and lets it leave
// memory once that is committed.
func (s *Server) finish(r *run, state State, errText string, res *starlarkagent.RunResult) {
	now := time.Now()
	r.mu.Lock()
	start := r.started
	r.mu.Unlock()
	if start.IsZero() {
		start = r.created
	}
	end := endEvent{State: state, Error: errText, Timing: timingOf(start, now)}
	rec := &runRecord{ID: r.id, State: state, EndedAt: now, Error: errText}
	if res != nil {
		lr := leanResult(res)
		if b, err := json.Marshal(lr); err == nil {
			rec.Result = b
		} else {
			s.log.Error("run result not representable as JSON", "run", r.id, "error", err)
		}
		end.Output, end.Repr, end.TokenUsage = pyvalue.JSON{V: res.Output}, res.Repr(), res.TokenUsage
		end.Timing = timingJSON{Start: res.Timing.Start.UTC(), End: res.Timing.End.UTC(), Duration: res.Timing.Duration().Seconds()}
		end.Steps = actionSteps(res.Steps)
		rec.Steps, rec.Input, rec.Output = end.Steps, res.TokenUsage.InputTokens, res.TokenUsage.OutputTokens
	}
	rec.Duration = end.Timing.Duration
	if r.lost.Load() || (state == StateInterrupted && s.handOver()) {
		s.release(r)
		return
	}
	// The state turns final with the end event, under one lock, so that a
	// watcher that sees the final state also has the end event.
	b, _ := json.Marshal(end)
	// Its place is free before anyone can see it ended.
	s.mu.Lock()
	s.pending--
	s.mu.Unlock()
	r.mu.Lock()
	ev := storedEvent{ID: int64(len(r.events) + 1), Type: "end", Data: b}
	r.events = append(r.events, ev)
	r.state, r.ended, r.errText, r.result, r.summary = state, now, errText, rec.Result, end
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	s.store.addEvent(s.fence(r), ev)
	s.store.finishRun(s.fence(r), rec)

	s.metrics.runs.WithLabelValues(string(state)).Inc()
	if r.tenant != "" {
		s.metrics.tenantRuns.WithLabelValues(r.tenant, string(state)).Inc()
		s.metrics.tenantTokens.WithLabelValues(r.tenant, "input").Add(float64(rec.Input))
		s.metrics.tenantTokens.WithLabelValues(r.tenant, "output").Add(float64(rec.Output))
	}
	s.metrics.runDuration.WithLabelValues(string(state)).Observe(end.Timing.Duration)
	s.observeDuration(now.Sub(start))
	s.log.Info("run ended", "run", r.id, "tenant", r.tenant, "state", state, "error", errText, "duration", now.Sub(start))

	// Leave memory once the end event is committed: from then on the
	// database has every event.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.store.Flush(ctx); err != nil && !errors.Is(err, errStoreClosed) {
		s.log.Error("store: flush", "run", r.id, "error", err)
	}
	r.stored.Store(true)
	s.mu.Lock()
	delete(s.active, r.id)
	s.mu.Unlock()
	r.cancel(nil)
}

// runBudget is the budget of a run: what the request asks for, capped by
// the server's.
func (s *Server) runBudget(req RunRequest) starlarkagent.Budget {
	b := s.opts.Budget
	if req.MaxTotalTokens > 0 && (b.MaxTotalTokens <= 0 || req.MaxTotalTokens < b.MaxTotalTokens) {
		b.MaxTotalTokens = req.MaxTotalTokens
	}
	if req.MaxCost > 0 && (b.MaxCost <= 0 || req.MaxCost < b.MaxCost) {
		b.MaxCost = req.MaxCost
	}
	return b
}

// handOver reports whether a run stopped by shutdown is left for another
// replica to resume, rather than ended: on PostgreSQL. A single SQLite
// server ends it interrupted, as a shutdown always did (Options.Resume
// covers the runs of a process that could not shut down).
func (s *Server) handOver() bool { return s.store.pg }

// release lets a run leave memory without ending it: it was lost to
// another server (whose writes these would be), or it is handed over at
// shutdown, when its lease is dropped so that another replica takes it
// at once.
func (s *Server) release(r *run) {
	s.mu.Lock()
	s.pending--
	delete(s.active, r.id)
	s.mu.Unlock()
	if r.lost.Load() {
		// Know which of its events were refused before its streams
		// decide where to resume (see run.refused).
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := s.store.Flush(ctx); err != nil && !errors.Is(err, errStoreClosed) {
			s.log.Warn("store: flush", "run", r.id, "error", err)
		}
		cancel()
	} else {
		f := s.fence(r)
		s.store.enqueue(context.Background(), s.store.op(f, "hand over "+r.id, func(tx *sql.Tx) error {
			_, err := tx.Exec(s.store.q(`UPDATE runs SET owner = '', lease_until = 0 WHERE id = ?`), r.id)
			return err
		}), false)
		s.log.Info("run handed over for another server to resume", "run", r.id, "attempt", r.attempt)
	}
	// Streams of this server follow the run in the database, or end
	// with a reconnect event; a client that reconnects with
	// Last-Event-ID gets the rest from the database.
	r.released.Store(true)
	r.mu.Lock()
	r.state = StateInterrupted
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	r.cancel(nil)
}
