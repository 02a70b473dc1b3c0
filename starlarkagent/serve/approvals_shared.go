package serve

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/starlarkagent"
)

// Decisions go through the store, so that any server can decide an
// approval: the one that receives POST /v1/runs/{id}/approvals/{approval}
// writes the decision (the first one written wins), and the one running
// the run reads it: at once when it is that server, on a notification
// or within a second on PostgreSQL otherwise, and when it asks for the
// approval (a run resumed elsewhere asks again, with the same approval id,
// and finds a decision made meanwhile).

// storedDecision is a decision as the store keeps it.
type storedDecision struct {
	Approve   bool           `json:"approve"`
	Reason    string         `json:"reason,omitempty"`
	By        string         `json:"by,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// putDecision writes the decision on an approval of run, unless one is
// there already; it reports whether it wrote it. On PostgreSQL the
// run's listeners are told.
func (s *Store) putDecision(ctx context.Context, run, approval string, d starlarkagent.Decision) (bool, error) {
	b, err := json.Marshal(storedDecision{Approve: d.Approve, Reason: d.Reason, By: d.By, Arguments: d.Arguments})
	if err != nil {
		return false, err
	}
	res, err := s.w.ExecContext(ctx, s.q(`INSERT INTO approval_decisions (run_id, approval_id, decision, decided_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`),
		run, approval, string(b), formatTime(time.Now()))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return false, err
	}
	if s.pg {
		_, err = s.w.ExecContext(ctx, `SELECT pg_notify('star_agent_events', $1)`, run)
	}
	return true, err
}

// getDecision reads the decision on an approval of run, if there is one.
func (s *Store) getDecision(ctx context.Context, run, approval string) (starlarkagent.Decision, bool, error) {
	var raw string
	err := s.r.QueryRowContext(ctx, s.q(`SELECT decision FROM approval_decisions WHERE run_id = ? AND approval_id = ?`), run, approval).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return starlarkagent.Decision{}, false, nil
	}
	if err != nil {
		return starlarkagent.Decision{}, false, err
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	var sd storedDecision
	if err := dec.Decode(&sd); err != nil {
		return starlarkagent.Decision{}, false, err
	}
	d := starlarkagent.Decision{Approve: sd.Approve, Reason: sd.Reason, By: sd.By}
	if sd.Arguments != nil {
		d.Arguments = pyvalue.Numbers(sd.Arguments).(map[string]any)
	}
	return d, true, nil
}

// storedPending lists the approvals of run asked and not decided, from
// its stored events: what a server that does not run the run shows.
func (s *Store) storedPending(ctx context.Context, run string) ([]approvalView, error) {
	rows, err := s.r.QueryContext(ctx, s.q(`SELECT type, data FROM events WHERE run_id = ? AND type IN ('approval_requested', 'approval_decided') ORDER BY id`), run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var order []string
	pending := map[string]approvalView{}
	for rows.Next() {
		var typ, data string
		if err := rows.Scan(&typ, &data); err != nil {
			return nil, err
		}
		var v approvalView
		if json.Unmarshal([]byte(data), &v) != nil || v.ID == "" {
			continue
		}
		if typ == "approval_requested" {
			if _, seen := pending[v.ID]; !seen {
				order = append(order, v.ID)
			}
			pending[v.ID] = v
		} else {
			delete(pending, v.ID)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []approvalView
	for _, id := range order {
		if v, ok := pending[id]; ok {
			out = append(out, v)
			delete(pending, id)
		}
	}
	return out, nil
}
