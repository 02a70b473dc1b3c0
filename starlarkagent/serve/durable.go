package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// DefaultLease is how long a run stays with a server that stopped
// renewing it before another takes it over.
const DefaultLease = 30 * time.Second

// NewReplicaID returns a name for a server in the runs it owns and the
// sandboxes it starts: host, process and a random part, so that a
// restarted process is another owner.
func NewReplicaID() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// startDurable resumes (or, without Options.Resume, interrupts) the runs
// a previous SQLite process left, and on PostgreSQL starts listening for
// cancellations; then it keeps the leases.
func (s *Server) startDurable() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.store.heartbeat(ctx, s.replica, s.leaseTTL()); err != nil {
		return fmt.Errorf("serve: writing this replica's heartbeat: %w", err)
	}
	if s.store.pg {
		s.store.listen.setOnCancel(s.remoteCancel)
	} else if !s.opts.Resume {
		if err := s.store.interruptOrphans(); err != nil {
			return fmt.Errorf("serve: ending the runs of the previous process: %w", err)
		}
	} else {
		// The lock file says no other process has these runs.
		claimed, err := s.store.claimRuns(ctx, s.replica, s.leaseTTL(), 1<<20, true)
		if err != nil {
			return fmt.Errorf("serve: resuming the runs of the previous process: %w", err)
		}
		for _, c := range claimed {
			s.takeOver(ctx, c, true)
		}
	}
	go s.keepLeases()
	if s.opts.SweepSandboxes != nil {
		go s.sweepSandboxes()
	} else {
		close(s.sweepDone)
	}
	return nil
}

// keepLeases renews this server's leases a few times per lease, stops the
// runs it lost or that were cancelled elsewhere, and on PostgreSQL takes
// over runs whose lease lapsed, as many as it has room for.
func (s *Server) keepLeases() {
	defer close(s.leasesDone)
	every := max(s.opts.Lease/6, 100*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-s.stopLeases:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every*3)
		if err := s.store.heartbeat(ctx, s.replica, s.leaseTTL()); err != nil {
			s.log.Warn("renewing this replica's heartbeat", "error", err)
		}
		s.renew(ctx)
		if s.store.pg {
			s.claim(ctx)
		}
		cancel()
	}
}

func (s *Server) renew(ctx context.Context) {
	// The runs held before the renewal: a run created meanwhile may be
	// missing from its answer without being lost.
	s.mu.Lock()
	active := make([]*run, 0, len(s.active))
	for _, r := range s.active {
		active = append(active, r)
	}
	s.mu.Unlock()
	owned, err := s.store.renewLeases(ctx, s.replica, s.leaseTTL())
	if err != nil {
		s.log.Warn("renewing the leases of runs", "error", err)
		return
	}
	for _, r := range active {
		o, ok := owned[r.id]
		r.mu.Lock()
		final := r.state.Final()
		r.mu.Unlock()
		switch {
		case final:
		case !ok || o.attempt != r.attempt:
			s.lose(r)
		case o.cancel:
			r.cancel(errCancelled)
		}
	}
}

// claim takes over runs whose lease lapsed.
func (s *Server) claim(ctx context.Context) {
	s.mu.Lock()
	room := s.opts.MaxConcurrent - (s.pending - s.queuedHere())
	if s.draining {
		room = 0
	}
	s.mu.Unlock()
	if room <= 0 {
		return
	}
	claimed, err := s.store.claimRuns(ctx, s.replica, s.leaseTTL(), room, false)
	if err != nil {
		s.log.Warn("taking over runs", "error", err)
		return
	}
	for _, c := range claimed {
		s.takeOver(ctx, c, false)
	}
}

// queuedHere counts the runs waiting for a slot here; s.mu is held.
func (s *Server) queuedHere() int {
	n := 0
	for _, r := range s.active {
		r.mu.Lock()
		if r.state == StateQueued {
			n++
		}
		r.mu.Unlock()
	}
	return n
}

// takeOver resumes a claimed run here.
func (s *Server) takeOver(ctx context.Context, c claimedRun, atStart bool) {
	st, err := s.store.loadRun(ctx, c.id)
	if err != nil {
		s.log.Error("taking over a run: reading it", "run", c.id, "error", err)
		return
	}
	var req RunRequest
	if err := json.Unmarshal(st.rec.Request, &req); err != nil {
		s.log.Error("taking over a run: its request", "run", c.id, "error", err)
		return
	}
	answers, records := replayAnswers(st.steps)
	rctx, cancel := context.WithCancelCause(context.Background())
	r := &run{id: c.id, task: st.rec.Task, req: req, created: st.rec.CreatedAt, started: st.rec.StartedAt, ctx: rctx, cancel: cancel,
		state: StateQueued, changed: make(chan struct{}), tenant: st.rec.Tenant, attempt: c.attempt,
		events: st.events, stepN: len(st.steps), resume: &resumeState{attempt: c.attempt, answers: answers, records: records}}
	for _, t := range s.tenants {
		if t.Name == r.tenant {
			r.tenantCfg = t
		}
	}
	if c.cancel {
		cancel(errCancelled)
	}
	s.mu.Lock()
	s.pending++
	s.runs.Add(1)
	s.active[r.id] = r
	s.mu.Unlock()
	s.metrics.resumed.Inc()
	s.log.Warn("resuming a run another server left", "run", r.id, "attempt", c.attempt, "replayed_steps", len(r.resume.answers), "at_start", atStart)
	go s.execute(r)
}

// remoteCancel cancels a run of this server that was cancelled through
// another replica.
func (s *Server) remoteCancel(id string) {
	s.mu.Lock()
	r := s.active[id]
	s.mu.Unlock()
	if r != nil {
		r.cancel(errCancelled)
	}
}

// leaseTTL is how far ahead a lease is written: two thirds of
// Options.Lease, so that with a claim every sixth of it, a run whose
// owner stopped is taken over within Options.Lease.
func (s *Server) leaseTTL() time.Duration { return s.opts.Lease * 2 / 3 }
