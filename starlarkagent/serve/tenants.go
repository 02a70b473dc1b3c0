package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/star-agent/star-agent/starlarkagent"
)

// Tenants: teams that share one server, each with a token of its own.
// Every run belongs to the tenant that created it; a tenant sees, streams,
// cancels and decides only its own runs (another tenant's run id answers
// 404, as an unknown one does), and lists only its own. Quotas per tenant
// (runs in flight, tokens a day) answer 429 with Retry-After; a tenant's
// budget caps each of its runs as the server's does. Options.Token is one
// tenant, "default".

// Tenant is one team of a shared server.
type Tenant struct {
	// Name identifies the tenant in runs, logs, metrics and decisions.
	Name string `json:"name"`
	// Token is its bearer token.
	Token string `json:"token"`
	// MaxRunsInFlight bounds its runs queued, running or awaiting
	// approval at once (0: no limit).
	MaxRunsInFlight int `json:"max_runs_in_flight,omitempty"`
	// MaxTokensPerDay bounds the tokens (input and output) of its runs
	// that ended since 00:00 UTC and of those in flight here; past it,
	// new runs wait for the next day (0: no limit).
	MaxTokensPerDay int `json:"max_tokens_per_day,omitempty"`
	// MaxTotalTokens and MaxCost cap each of its runs' budgets.
	MaxTotalTokens int     `json:"max_total_tokens,omitempty"`
	MaxCost        float64 `json:"max_cost,omitempty"`

	// ownerless: the tenant of Options.Token also sees the runs that
	// belong to no tenant, those stored before tenants existed.
	ownerless bool
}

// ReadTenants reads a tokens file: {"tenants": [{"name": "team-a",
// "token": "...", "max_runs_in_flight": 2, "max_tokens_per_day": 1000000,
// "max_total_tokens": 50000, "max_cost": 1.5}, ...]}.
func ReadTenants(r io.Reader) ([]Tenant, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f struct {
		Tenants []Tenant `json:"tenants"`
	}
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("tenants: %w (want {\"tenants\": [{\"name\": \"...\", \"token\": \"...\"}]})", err)
	}
	if len(f.Tenants) == 0 {
		return nil, errors.New("tenants: the file names no tenant")
	}
	return f.Tenants, nil
}

// checkTenants validates the tenants and returns them by token hash.
func checkTenants(ts []Tenant) (map[[32]byte]*Tenant, error) {
	out := make(map[[32]byte]*Tenant, len(ts))
	names := map[string]bool{}
	for i := range ts {
		t := &ts[i]
		switch {
		case t.Name == "" || len(t.Name) > 64 || !identifier.MatchString(t.Name):
			return nil, fmt.Errorf("serve: tenant %d: name %q must be an identifier (letters, digits, _) of at most 64 characters", i+1, t.Name)
		case names[t.Name]:
			return nil, fmt.Errorf("serve: tenant %q is named twice", t.Name)
		case len(t.Token) < 16:
			return nil, fmt.Errorf("serve: tenant %q: its token must be at least 16 characters", t.Name)
		case t.MaxRunsInFlight < 0 || t.MaxTokensPerDay < 0 || t.MaxTotalTokens < 0 || t.MaxCost < 0:
			return nil, fmt.Errorf("serve: tenant %q: quotas must not be negative", t.Name)
		}
		sum := sha256.Sum256([]byte(t.Token))
		if _, dup := out[sum]; dup {
			return nil, fmt.Errorf("serve: tenants %q and another share a token", t.Name)
		}
		names[t.Name] = true
		out[sum] = t
	}
	return out, nil
}

type tenantKey struct{}

// tenantOf is the tenant of an authenticated request; nil when the server
// has no tokens (everyone sees everything).
func tenantOf(r *http.Request) *Tenant {
	t, _ := r.Context().Value(tenantKey{}).(*Tenant)
	return t
}

// authenticate finds the tenant whose token the request carries. Hashes
// of equal length are compared in constant time, with every tenant's.
func (s *Server) authenticate(got string) *Tenant {
	sum := sha256.Sum256([]byte(got))
	var found *Tenant
	for h, t := range s.tenants {
		if subtle.ConstantTimeCompare(sum[:], h[:]) == 1 {
			found = t
		}
	}
	return found
}

// visible reports whether the request may see a run of tenant owner.
func visible(r *http.Request, owner string) bool {
	t := tenantOf(r)
	return t == nil || t.Name == owner || (t.ownerless && owner == "")
}

// caller names who made a request, for the audit trail: its tenant.
func (s *Server) caller(r *http.Request) string {
	if t := tenantOf(r); t != nil {
		return t.Name
	}
	return "api"
}

// admitTenant checks a tenant's quotas before a run is created. It
// returns false after writing a 429.
func (s *Server) admitTenant(w http.ResponseWriter, r *http.Request, t *Tenant) bool {
	if t == nil {
		return true
	}
	if t.MaxRunsInFlight > 0 {
		// On PostgreSQL the tenant's runs on other replicas count too
		// (and those no replica holds at the moment, being handed
		// over): from the database. This replica's own, from memory,
		// which also has those not committed yet.
		n := 0
		if s.store.pg {
			var err error
			if n, err = s.store.openRunsElsewhere(r.Context(), t.Name, s.replica); err != nil {
				writeError(w, http.StatusInternalServerError, "internal", "reading the tenant's runs in flight: "+err.Error())
				return false
			}
		}
		s.mu.Lock()
		for _, rn := range s.active {
			rn.mu.Lock()
			if rn.tenant == t.Name && !rn.state.Final() {
				n++
			}
			rn.mu.Unlock()
		}
		retry := s.retryAfter()
		s.mu.Unlock()
		if n >= t.MaxRunsInFlight {
			s.metrics.tenantRejected.WithLabelValues(t.Name, "runs_in_flight").Inc()
			w.Header().Set("Retry-After", fmt.Sprint(retry))
			writeError(w, http.StatusTooManyRequests, "quota", fmt.Sprintf("tenant %s has %d runs in flight, its quota: retry in %d s, or cancel one", t.Name, n, retry))
			return false
		}
	}
	if t.MaxTokensPerDay > 0 {
		now := time.Now().UTC()
		day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
		used, err := s.store.tenantTokens(r.Context(), t.Name, day)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "internal", "reading the tenant's usage: "+err.Error())
			return false
		}
		// Runs still here (running, or ended but not yet in the store)
		// count what they spent so far; one stored meanwhile may count
		// twice for an instant, never zero times.
		s.mu.Lock()
		for _, rn := range s.active {
			if rn.tenant == t.Name && !rn.stored.Load() {
				used += int(rn.tokens.Load())
			}
		}
		s.mu.Unlock()
		if used >= t.MaxTokensPerDay {
			retry := int(day.Add(24*time.Hour).Sub(now).Seconds()) + 1
			s.metrics.tenantRejected.WithLabelValues(t.Name, "tokens_per_day").Inc()
			w.Header().Set("Retry-After", fmt.Sprint(retry))
			writeError(w, http.StatusTooManyRequests, "quota", fmt.Sprintf("tenant %s used %d tokens today (UTC), its quota of %d: new runs start again at 00:00 UTC, in %d s", t.Name, used, t.MaxTokensPerDay, retry))
			return false
		}
	}
	return true
}

// tenantBudget caps b with the tenant's budget.
func tenantBudget(b starlarkagent.Budget, t *Tenant) starlarkagent.Budget {
	if t == nil {
		return b
	}
	if t.MaxTotalTokens > 0 && (b.MaxTotalTokens <= 0 || t.MaxTotalTokens < b.MaxTotalTokens) {
		b.MaxTotalTokens = t.MaxTotalTokens
	}
	if t.MaxCost > 0 && (b.MaxCost <= 0 || t.MaxCost < b.MaxCost) {
		b.MaxCost = t.MaxCost
	}
	return b
}

// tenantTokens sums the tokens of a tenant's runs that ended since t.
func (s *Store) tenantTokens(ctx context.Context, tenant string, since time.Time) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, s.q(`SELECT coalesce(sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)), 0) FROM runs WHERE tenant = ? AND ended_at >= ?`),
		tenant, formatTime(since)).Scan(&n)
	return n, err
}

// openRunsElsewhere counts the tenant's runs that have not ended and
// that replica me does not hold.
func (s *Store) openRunsElsewhere(ctx context.Context, tenant, me string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, s.q(`SELECT count(*) FROM runs WHERE tenant = ? AND state IN `+openStates+` AND owner <> ?`), tenant, me).Scan(&n)
	return n, err
}

// runTenant is the tenant of a stored run.
func (s *Store) runTenant(ctx context.Context, id string) (string, error) {
	var t string
	err := s.r.QueryRowContext(ctx, s.q(`SELECT tenant FROM runs WHERE id = ?`), id).Scan(&t)
	return t, err
}
