package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Leases: a run that has not ended belongs to one server (owner) until
// its lease lapses. The owner renews the leases of its runs several times
// per lease; a server whose lease lapsed (dead, paused, cut off) loses the
// run to the first server that claims it, which bumps the attempt. Every
// write of a run is fenced by its attempt (see Store.commit), so the old
// owner, should it come back, writes nothing more.

const openStates = `('queued', 'running', 'awaiting_approval')`

// ownedRun is the database's view of a run a server holds.
type ownedRun struct {
	attempt int64
	cancel  bool
}

// renewLeases extends the leases of the owner's open runs and returns
// them, so that the owner sees which runs it lost and which were
// cancelled through another replica.
func (s *Store) renewLeases(ctx context.Context, owner string, lease time.Duration) (map[string]ownedRun, error) {
	lock := ""
	if s.pg {
		lock = ` ORDER BY id FOR UPDATE` // in the writer's order (lockRuns)
	}
	rows, err := s.w.QueryContext(ctx, s.q(`UPDATE runs SET lease_until = `+s.nowMS()+` + ?
		WHERE id IN (SELECT id FROM runs WHERE owner = ? AND state IN `+openStates+lock+`)
		RETURNING id, attempt, cancel_requested`), lease.Milliseconds(), owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]ownedRun{}
	for rows.Next() {
		var id string
		var o ownedRun
		var c int
		if err := rows.Scan(&id, &o.attempt, &c); err != nil {
			return nil, err
		}
		o.cancel = c != 0
		out[id] = o
	}
	return out, rows.Err()
}

// claimedRun is a run a server took over.
type claimedRun struct {
	id      string
	attempt int64
	cancel  bool
}

// claimRuns takes over up to n open runs whose lease has lapsed (with
// any, every open run: a single SQLite server at its start), for owner.
func (s *Store) claimRuns(ctx context.Context, owner string, lease time.Duration, n int, any bool) ([]claimedRun, error) {
	cond := `lease_until < ` + s.nowMS()
	if any {
		cond = `1 = 1`
	}
	lock := ""
	if s.pg {
		// Replicas claiming together skip each other's rows.
		lock = ` FOR UPDATE SKIP LOCKED`
	}
	rows, err := s.w.QueryContext(ctx, s.q(`UPDATE runs SET owner = ?, attempt = attempt + 1, lease_until = `+s.nowMS()+` + ?
		WHERE id IN (SELECT id FROM runs WHERE state IN `+openStates+` AND `+cond+` ORDER BY seq LIMIT ?`+lock+`)
		RETURNING id, attempt, cancel_requested`), owner, lease.Milliseconds(), n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []claimedRun
	for rows.Next() {
		var c claimedRun
		var cancel int
		if err := rows.Scan(&c.id, &c.attempt, &cancel); err != nil {
			return nil, err
		}
		c.cancel = cancel != 0
		out = append(out, c)
	}
	return out, rows.Err()
}

// requestCancel asks the owner of an open run to cancel it, wherever it
// runs; it reports whether the run was open.
func (s *Store) requestCancel(ctx context.Context, id string) (bool, error) {
	res, err := s.w.ExecContext(ctx, s.q(`UPDATE runs SET cancel_requested = 1 WHERE id = ? AND state IN `+openStates), id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return false, err
	}
	if s.pg {
		_, err = s.w.ExecContext(ctx, `SELECT pg_notify('star_agent_cancel', $1)`, id)
	}
	return true, err
}

// storedRun is what a server needs to take a run over: its request, its
// events so far and its steps.
type storedRun struct {
	rec    *runRecord
	events []storedEvent
	steps  []json.RawMessage
}

func (s *Store) loadRun(ctx context.Context, id string) (*storedRun, error) {
	rec, err := s.getRun(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.w.QueryRowContext(ctx, s.q(`SELECT tenant FROM runs WHERE id = ?`), id).Scan(&rec.Tenant); err != nil {
		return nil, err
	}
	out := &storedRun{rec: rec}
	for after := int64(0); ; {
		evs, err := s.events(ctx, id, after, 1000)
		if err != nil {
			return nil, err
		}
		if len(evs) == 0 {
			break
		}
		out.events = append(out.events, evs...)
		after = evs[len(evs)-1].ID
	}
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT data FROM steps WHERE run_id = ? ORDER BY n`), id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var d sql.NullString
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out.steps = append(out.steps, json.RawMessage(d.String))
	}
	return out, rows.Err()
}
