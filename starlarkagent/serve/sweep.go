package serve

import (
	"context"
	"time"
)

// Sandboxes do not outlive their owner. Each run's sandboxes carry the
// replica and the run that own them (AgentRequest.Owner: labels on
// Docker containers, metadata or tags on cloud sandboxes). A server
// closes its runs' sandboxes as they end; one that dies (kill -9, OOM,
// node loss) cannot, so every replica with Options.SweepSandboxes sweeps
// now and then: it removes the sandboxes of a replica that is gone (its
// heartbeat in the store lapsed, or it never had one) unless the store
// says that replica still holds the sandbox's run (nobody took it over
// yet). A sandbox created less than a lease ago is left alone, whatever
// its labels: its replica may not have written its first heartbeat yet.

// Labels naming the owner of a sandbox (AgentRequest.Owner).
const (
	LabelReplica = "io.star-agent.replica"
	LabelRun     = "io.star-agent.run"
)

// SweepFunc lists the sandboxes of the runs (for star-agent serve, the
// containers of --executor docker), removes those for which orphan
// reports true, and returns how many it removed. It gets each sandbox's
// labels and creation time.
type SweepFunc func(ctx context.Context, orphan func(labels map[string]string, created time.Time) bool) (int, error)

// heartbeat says this replica is alive for ttl more.
func (s *Store) heartbeat(ctx context.Context, replica string, ttl time.Duration) error {
	_, err := s.w.ExecContext(ctx, s.q(`INSERT INTO replicas (id, alive_until) VALUES (?, `+s.nowMS()+` + ?)
		ON CONFLICT (id) DO UPDATE SET alive_until = excluded.alive_until`), replica, ttl.Milliseconds())
	return err
}

// forgetReplica removes a replica's heartbeat (it shut down: its
// sandboxes are closed, and any left are its peers' to sweep).
func (s *Store) forgetReplica(ctx context.Context, replica string) error {
	_, err := s.w.ExecContext(ctx, s.q(`DELETE FROM replicas WHERE id = ?`), replica)
	return err
}

// ownership is the store's view for a sweep: the replicas alive, and
// the owner of every open run.
type ownership struct {
	alive  map[string]bool
	owners map[string]string
}

func (s *Store) ownership(ctx context.Context) (ownership, error) {
	o := ownership{alive: map[string]bool{}, owners: map[string]string{}}
	// Heartbeats lapsed for a day are forgotten: a replica without one is
	// gone all the same.
	if _, err := s.w.ExecContext(ctx, s.q(`DELETE FROM replicas WHERE alive_until < `+s.nowMS()+` - ?`), (24 * time.Hour).Milliseconds()); err != nil {
		return o, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM replicas WHERE alive_until >= `+s.nowMS())
	if err != nil {
		return o, err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return o, err
		}
		o.alive[id] = true
	}
	if err := rows.Close(); err != nil {
		return o, err
	}
	rows, err = s.r.QueryContext(ctx, `SELECT id, owner FROM runs WHERE state IN `+openStates+` AND owner <> ''`)
	if err != nil {
		return o, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, owner string
		if err := rows.Scan(&id, &owner); err != nil {
			return o, err
		}
		o.owners[id] = owner
	}
	return o, rows.Err()
}

// orphan reports whether a sandbox with these labels, created then, has
// an owner that is gone. me is the replica asking, grace how young a
// sandbox is left alone.
func (o ownership) orphan(me string, grace time.Duration, labels map[string]string, created time.Time) bool {
	replica := labels[LabelReplica]
	switch {
	case replica == "" || replica == me || o.alive[replica]:
		return false // not serve's, ours, or a live replica's
	case time.Since(created) < grace:
		return false
	}
	if run := labels[LabelRun]; run != "" && o.owners[run] == replica {
		return false // its replica still holds the run: no one took it over yet
	}
	return true
}

// sweepSandboxes sweeps every Options.Lease until Shutdown.
func (s *Server) sweepSandboxes() {
	defer close(s.sweepDone)
	every := max(s.opts.Lease, time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-s.stopLeases:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), max(every, 30*time.Second))
		s.sweepOnce(ctx)
		cancel()
	}
}

func (s *Server) sweepOnce(ctx context.Context) {
	o, err := s.store.ownership(ctx)
	if err != nil {
		s.log.Warn("sweeping sandboxes: reading their owners", "error", err)
		return
	}
	n, err := s.opts.SweepSandboxes(ctx, func(labels map[string]string, created time.Time) bool {
		return o.orphan(s.replica, s.opts.Lease, labels, created)
	})
	if n > 0 {
		s.metrics.swept.Add(float64(n))
		s.log.Info("removed the sandboxes of servers that are gone", "removed", n)
	}
	if err != nil {
		s.log.Warn("sweeping sandboxes", "error", err)
	}
}
