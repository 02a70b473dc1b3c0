package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"time"

	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/starlarkagent"
)

// Approvals: a run whose agent makes a call that needs approval (the
// CLI's --require-approval, or a tool's Spec.RequiresApproval) parks in
// state awaiting_approval while the call waits; GET /v1/runs/{id} lists
// the calls in pending_approvals, POST /v1/runs/{id}/approvals/{approval}
// decides one, and approval_requested and approval_decided events tell the
// streams. A call nobody decides within Options.ApprovalTimeout is denied.
// The waiting happens inside the tool call, so the run keeps its slot,
// its executors and its interpreter state while it waits.

// DefaultApprovalTimeout is how long a call waits for a decision when
// Options.ApprovalTimeout is 0.
const DefaultApprovalTimeout = 5 * time.Minute

// pendingApproval is a call waiting for a decision.
type pendingApproval struct {
	req   starlarkagent.ApprovalRequest
	asked time.Time
	// deadline is when the call stops waiting: the approval timeout, or
	// the run's timeout when that comes first (the execution's time
	// limit does not count the wait).
	deadline time.Time
	decided  chan starlarkagent.Decision // buffered, one send
	// resumed is set (under the run's mu) when the decision through the
	// API made the run running again: the waiting call announces it.
	resumed bool
}

// approvalView is a pending call in GET /v1/runs/{id} and in the
// approval_requested event.
type approvalView struct {
	ID        string    `json:"id"`
	Tool      string    `json:"tool"`
	Arguments any       `json:"arguments"`
	Step      int       `json:"step"`
	Agent     string    `json:"agent"`
	Call      string    `json:"call"`
	Requested time.Time `json:"requested_at"`
	Deadline  time.Time `json:"deadline"`
}

// approvalDecided is the data of the approval_decided event.
type approvalDecided struct {
	ID        string  `json:"id"`
	Tool      string  `json:"tool"`
	Approved  bool    `json:"approved"`
	Reason    string  `json:"reason,omitempty"`
	By        string  `json:"by,omitempty"`
	Arguments any     `json:"arguments,omitempty"`
	Waited    float64 `json:"waited"`
}

func (s *Server) approvalTimeout() time.Duration {
	if s.opts.ApprovalTimeout > 0 {
		return s.opts.ApprovalTimeout
	}
	return DefaultApprovalTimeout
}

func (p *pendingApproval) view() approvalView {
	return approvalView{ID: p.req.ID, Tool: p.req.Tool, Arguments: pyvalue.JSON{V: p.req.Arguments}, Step: p.req.Step,
		Agent: p.req.Agent, Call: p.req.Python, Requested: p.asked.UTC(), Deadline: p.deadline.UTC()}
}

// approver returns the Approver of run r: it parks the call until a
// decision arrives through the API, the timeout passes or the call ends.
func (s *Server) approver(r *run) starlarkagent.Approver {
	return func(ctx context.Context, req starlarkagent.ApprovalRequest) (starlarkagent.Decision, error) {
		timeout := s.approvalTimeout()
		p := &pendingApproval{req: req, asked: time.Now(), decided: make(chan starlarkagent.Decision, 1)}
		p.deadline = p.asked.Add(timeout)
		if dl, ok := ctx.Deadline(); ok && dl.Before(p.deadline) {
			// The run's timeout comes first: say so.
			p.deadline = dl
		}
		r.mu.Lock()
		if r.pending == nil {
			r.pending = map[string]*pendingApproval{}
		}
		r.pending[req.ID] = p
		r.order = append(r.order, req.ID)
		first := len(r.pending) == 1
		if first {
			r.state = StateAwaitingApproval
		}
		r.mu.Unlock()
		s.metrics.approvals.WithLabelValues("requested").Inc()
		s.audit.Info("approval requested", "run", r.id, "tenant", r.tenant, "approval", req.ID, "tool", req.Tool, "step", req.Step, "agent", req.Agent, "call", clip(req.Python, 500))
		if first {
			s.add(r, "state", stateEvent{State: StateAwaitingApproval, Time: p.asked.UTC()})
		}
		s.add(r, "approval_requested", p.view())

		timer := time.NewTimer(timeout)
		defer timer.Stop()
		// A decision may come through the store: made before this ask
		// (the run resumed here asks again), or on another server.
		var wake <-chan struct{}
		var poll <-chan time.Time
		if s.store.listen != nil {
			c, stop := s.store.listen.subscribe(r.id)
			defer stop()
			wake = c
			t := time.NewTicker(time.Second)
			defer t.Stop()
			poll = t.C
		}
		stored := make(chan starlarkagent.Decision, 1)
		check := func() {
			if d, ok, err := s.store.getDecision(ctx, r.id, req.ID); err != nil {
				s.log.Warn("store: reading an approval decision", "run", r.id, "approval", req.ID, "error", err)
			} else if ok {
				select {
				case stored <- d:
				default: // already there
				}
			}
		}
		check()
		var (
			d       starlarkagent.Decision
			err     error
			outcome string
		)
	wait:
		for {
			select {
			case d = <-p.decided:
			case d = <-stored:
			case <-wake:
				check()
				continue wait
			case <-poll:
				check()
				continue wait
			case <-timer.C:
				d = starlarkagent.Decision{Reason: fmt.Sprintf("no decision within %s (the server's approval timeout)", timeout), By: "timeout"}
				outcome = "timed_out"
				break wait
			case <-ctx.Done():
				err = context.Cause(ctx)
				d = starlarkagent.Decision{Reason: "the call was stopped before a decision: " + err.Error()}
				outcome = "abandoned"
				break wait
			}
			outcome = "denied"
			if d.Approve {
				outcome = "approved"
			}
			break
		}
		r.mu.Lock()
		last := r.dropPending(req.ID) || p.resumed
		r.mu.Unlock()
		waited := time.Since(p.asked)
		s.metrics.approvals.WithLabelValues(outcome).Inc()
		s.audit.Info("approval decided", "run", r.id, "tenant", r.tenant, "approval", req.ID, "tool", req.Tool, "outcome", outcome, "by", d.By, "reason", d.Reason, "waited", waited)
		ev := approvalDecided{ID: req.ID, Tool: req.Tool, Approved: d.Approve, Reason: d.Reason, By: d.By, Waited: waited.Seconds()}
		if d.Arguments != nil {
			ev.Arguments = pyvalue.JSON{V: d.Arguments}
		}
		s.add(r, "approval_decided", ev)
		if last {
			s.add(r, "state", stateEvent{State: StateRunning, Time: time.Now().UTC()})
		}
		return d, err
	}
}

// decisionRequest is the body of POST /v1/runs/{id}/approvals/{approval_id}.
type decisionRequest struct {
	Approve   *bool          `json:"approve"`
	Reason    string         `json:"reason,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	id, rn, ok := s.lookup(w, r)
	if !ok {
		return
	}
	aid := r.PathValue("approval")
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", `the body must be JSON sent as Content-Type: application/json: {"approve": true|false, "reason": "..."}`)
		return
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var body decisionRequest
	if err := dec.Decode(&body); err != nil || body.Approve == nil {
		writeError(w, http.StatusBadRequest, "bad_request", `the body must be {"approve": true|false, "reason": "...", "arguments": {...}} with "approve" set`)
		return
	}
	if body.Arguments != nil && !*body.Approve {
		writeError(w, http.StatusBadRequest, "bad_request", `"arguments" replace the call's arguments on an approval; a denial takes only a "reason"`)
		return
	}
	ended := func() {
		writeError(w, http.StatusConflict, "conflict", fmt.Sprintf("run %s has ended: approval %q can no longer be decided", id, clip(aid, 40)))
	}
	noPending := func() {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("run %s has no pending approval %q: it was decided, timed out, or never asked (GET /v1/runs/%s lists pending_approvals)", id, clip(aid, 40), id))
	}
	if rn == nil {
		// Another server runs the run (or none does, between two): the
		// stored events say what is pending; the decision goes through
		// the store to whichever server runs it.
		rec, ok := s.storedRun(w, r, id)
		if !ok {
			return
		}
		if rec.State.Final() {
			ended()
			return
		}
		pending, err := s.store.storedPending(r.Context(), id)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "internal", "reading the run's approvals: "+err.Error())
			return
		}
		if !slices.ContainsFunc(pending, func(v approvalView) bool { return v.ID == aid }) {
			noPending()
			return
		}
	} else {
		rn.mu.Lock()
		p, fin := rn.pending[aid], rn.state.Final()
		rn.mu.Unlock()
		if fin {
			ended()
			return
		}
		if p == nil {
			noPending()
			return
		}
	}
	d := starlarkagent.Decision{Approve: *body.Approve, Reason: body.Reason, By: s.caller(r)}
	if body.Arguments != nil {
		d.Arguments = pyvalue.Numbers(body.Arguments).(map[string]any)
	}
	if !d.Approve && d.Reason == "" {
		d.Reason = "denied through the API"
	}
	// The first decision written wins, wherever it was made.
	wrote, err := s.store.putDecision(r.Context(), id, aid, d)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "recording the decision: "+err.Error())
		return
	}
	if !wrote {
		noPending()
		return
	}
	resp := map[string]any{"id": aid, "approved": d.Approve, "reason": d.Reason}
	if rn == nil {
		// The server running the run applies it, within a second; the
		// run's events show approval_decided when it has.
		resp["applied"] = false
		writeJSON(w, http.StatusAccepted, resp)
		return
	}
	rn.mu.Lock()
	if p := rn.pending[aid]; p != nil {
		select {
		case p.decided <- d:
			// Decided: no longer pending for anyone who looks after
			// this answer, though the waiting call takes its decision
			// a moment later (and announces the state if this made
			// the run running again).
			p.resumed = rn.dropPending(aid)
		default:
		}
	}
	rn.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

// dropPending removes approval id from r's pending calls; the run is
// running again once none is left, and dropPending reports whether this
// call made it so. r.mu is held.
func (r *run) dropPending(id string) bool {
	delete(r.pending, id)
	for i, o := range r.order {
		if o == id {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	if len(r.pending) == 0 && r.state == StateAwaitingApproval {
		r.state = StateRunning
		return true
	}
	return false
}

// pendingViews lists the pending approvals of r, oldest first. r.mu is
// held.
func (s *Server) pendingViews(r *run) []approvalView {
	var out []approvalView
	for _, id := range r.order {
		if p := r.pending[id]; p != nil {
			out = append(out, p.view())
		}
	}
	return out
}
