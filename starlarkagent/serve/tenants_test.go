package serve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	tokenA = "token-of-team-a-0123456789"
	tokenB = "token-of-team-b-0123456789"
)

// as returns a harness that sends token to h's server.
func (h *harness) as(token string) *harness {
	return &harness{t: h.t, srv: h.srv, url: h.url, token: token, script: h.script, stopped: true}
}

// TestTenantsAreBlindToEachOther: each tenant gets, lists, streams and
// cancels its own runs only; another tenant's run id is a 404, as an
// unknown one is.
func TestTenantsAreBlindToEachOther(t *testing.T) {
	h, started := newHarness(t, harnessOpts{modify: func(o *Options) {
		o.Tenants = []Tenant{{Name: "team_a", Token: tokenA}, {Name: "team_b", Token: tokenB}}
	}})
	a, b := h.as(tokenA), h.as(tokenB)
	done := a.start("Add 1, 2 and 3, times 7.")
	a.wait(done)
	blocked := a.start("block until cancelled")
	<-started
	mine := b.start("Add 1, 2 and 3, times 7.")
	b.wait(mine)

	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/runs/" + done, ""},
		{"GET", "/v1/runs/" + blocked, ""},
		{"GET", "/v1/runs/" + done + "/events", ""},
		{"GET", "/v1/runs/" + blocked + "/events", ""},
		{"POST", "/v1/runs/" + blocked + "/cancel", ""},
		{"POST", "/v1/runs/" + blocked + "/approvals/ap_0123456789abcdef", `{"approve": true}`},
	} {
		code, _, body := b.do(c.method, c.path, c.body)
		if code != 404 || !strings.Contains(string(body), "no run with id") {
			t.Errorf("team_b %s %s: %d %s, want 404", c.method, c.path, code, body)
		}
	}
	list := func(h *harness) []string {
		_, _, body := h.do("GET", "/v1/runs", "")
		var l struct{ Runs []struct{ ID string } }
		json.Unmarshal(body, &l)
		var ids []string
		for _, r := range l.Runs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	if got := list(a); strings.Join(got, ",") != blocked+","+done {
		t.Errorf("team_a lists %v", got)
	}
	if got := list(b); strings.Join(got, ",") != mine {
		t.Errorf("team_b lists %v", got)
	}
	// The owner still can.
	if code, _, body := a.do("POST", "/v1/runs/"+blocked+"/cancel", ""); code != 202 {
		t.Errorf("team_a cancels its run: %d %s", code, body)
	}
	if r := a.wait(blocked); r.State != StateCancelled {
		t.Errorf("state %s", r.State)
	}
	// No token, or a wrong one, is a 401.
	if code, _, _ := h.as("").do("GET", "/v1/runs", ""); code != 401 {
		t.Errorf("no token: %d", code)
	}
	if code, _, _ := h.as("token-of-nobody-0123456789").do("GET", "/v1/runs", ""); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
}

// TestTenantQuotas: runs in flight past a tenant's quota and tokens past
// its daily quota are answered 429 with Retry-After, for that tenant
// only; the tenant's budget caps its runs; metrics count by tenant.
func TestTenantQuotas(t *testing.T) {
	h, started := newHarness(t, harnessOpts{modify: func(o *Options) {
		o.Tenants = []Tenant{
			{Name: "team_a", Token: tokenA, MaxRunsInFlight: 1},
			{Name: "team_b", Token: tokenB, MaxTokensPerDay: 1},
		}
	}})
	a, b := h.as(tokenA), h.as(tokenB)
	blocked := a.start("block until cancelled")
	<-started
	code, hdr, body := a.do("POST", "/v1/runs", `{"task": "one more"}`)
	if code != 429 || hdr.Get("Retry-After") == "" || !strings.Contains(string(body), "tenant team_a has 1 runs in flight, its quota") {
		t.Errorf("team_a over its quota: %d %q %s", code, hdr.Get("Retry-After"), body)
	}
	// team_b is not limited by team_a's runs, but by its own tokens:
	// its first run spends them.
	b.wait(b.start("Add 1, 2 and 3, times 7."))
	code, hdr, body = b.do("POST", "/v1/runs", `{"task": "again"}`)
	retry, _ := strconv.Atoi(hdr.Get("Retry-After"))
	if code != 429 || retry <= 0 || retry > 86401 || !strings.Contains(string(body), "its quota of 1") {
		t.Errorf("team_b over its daily tokens: %d %q %s", code, hdr.Get("Retry-After"), body)
	}
	a.do("POST", "/v1/runs/"+blocked+"/cancel", "")
	a.wait(blocked)
	_, _, metrics := h.do("GET", "/metrics", "")
	for _, want := range []string{
		`star_agent_tenant_rejected_total{reason="runs_in_flight",tenant="team_a"} 1`,
		`star_agent_tenant_rejected_total{reason="tokens_per_day",tenant="team_b"} 1`,
		`star_agent_tenant_runs_total{state="cancelled",tenant="team_a"} 1`,
		`star_agent_tenant_runs_total{state="success",tenant="team_b"} 1`,
		`star_agent_tenant_tokens_total{direction="input",tenant="team_b"}`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestTenantQuotaCountsRunsInFlight: the daily token quota counts what a
// run still in flight has spent, not only runs that ended.
func TestTenantQuotaCountsRunsInFlight(t *testing.T) {
	h, started := newHarness(t, harnessOpts{
		script: func(task string) []string { return []string{twoSteps[0], blocking[0]} },
		modify: func(o *Options) {
			o.Tenants = []Tenant{{Name: "team_b", Token: tokenB, MaxTokensPerDay: 1}}
		},
	})
	b := h.as(tokenB)
	first := b.start("count, then wait")
	<-started // its first step ended: its tokens are spent
	code, _, body := b.do("POST", "/v1/runs", `{"task": "again"}`)
	if code != 429 || !strings.Contains(string(body), "its quota of 1") {
		t.Errorf("team_b with a run in flight past its daily tokens: %d %s", code, body)
	}
	b.do("POST", "/v1/runs/"+first+"/cancel", "")
	b.wait(first)
}

// TestTenantBudgetCap: a tenant's budget caps its runs' budgets, over
// what the request asks for.
func TestTenantBudgetCap(t *testing.T) {
	s := &Server{opts: Options{}}
	b := tenantBudget(s.runBudget(RunRequest{MaxTotalTokens: 9000}), &Tenant{MaxTotalTokens: 5000, MaxCost: 2})
	if b.MaxTotalTokens != 5000 || b.MaxCost != 2 {
		t.Errorf("budget %+v", b)
	}
	b = tenantBudget(s.runBudget(RunRequest{MaxTotalTokens: 100}), &Tenant{MaxTotalTokens: 5000})
	if b.MaxTotalTokens != 100 {
		t.Errorf("budget %+v", b)
	}
}

// TestTenantMigration: a database of schema version 2 gains the tenant
// column; its runs belong to no tenant and stay visible without tokens.
func TestTenantMigration(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	h, _ := newHarness(t, harnessOpts{db: db})
	id := h.start("Add.")
	h.wait(id)
	h.shutdown()
	s, err := OpenStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`DROP TABLE approval_decisions; DROP TABLE replicas; DROP INDEX runs_idempotency; ALTER TABLE runs DROP COLUMN attempt; ALTER TABLE runs DROP COLUMN owner; ALTER TABLE runs DROP COLUMN lease_until; ALTER TABLE runs DROP COLUMN cancel_requested; ALTER TABLE runs DROP COLUMN idempotency_key; DROP INDEX runs_tenant; DROP INDEX runs_tenant_ended; ALTER TABLE runs DROP COLUMN tenant; PRAGMA user_version = 2`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := s.runTenant(context.Background(), id)
	if err != nil || owner != "" {
		t.Errorf("tenant of an old run: %q, %v", owner, err)
	}
	n, err := s.tenantTokens(context.Background(), "", time.Now().Add(-time.Hour))
	if err != nil || n == 0 {
		t.Errorf("tokens of the old run: %d, %v", n, err)
	}
	s.Close()

	// The single --token (tenant "default") still sees the runs stored
	// before tenants; a tenant of the file does not.
	h2, _ := newHarness(t, harnessOpts{db: db, token: "tok", modify: func(o *Options) {
		o.Tenants = []Tenant{{Name: "team_a", Token: tokenA}}
	}})
	if code, _, body := h2.do("GET", "/v1/runs/"+id, ""); code != 200 {
		t.Errorf("default tenant, old run: %d %s", code, body)
	}
	if _, _, body := h2.do("GET", "/v1/runs", ""); !strings.Contains(string(body), id) {
		t.Errorf("default tenant's list lacks the old run: %s", body)
	}
	if code, _, _ := h2.as(tokenA).do("GET", "/v1/runs/"+id, ""); code != 404 {
		t.Errorf("team_a, old run: %d, want 404", code)
	}
}

// TestTenantRunsInFlightAcrossReplicas: on PostgreSQL a tenant's runs in
// flight are counted over every replica: with one running on A, B
// refuses the next; once it ended, B admits one.
func TestTenantRunsInFlightAcrossReplicas(t *testing.T) {
	hs := pgReplicas(t, 2, func(o *Options) {
		o.Tenants = []Tenant{{Name: "team_a", Token: tokenA, MaxRunsInFlight: 1}}
	})
	a, b := hs[0].as(tokenA), hs[1].as(tokenA)
	blocked := a.start("block until cancelled")
	code, _, body := b.do("POST", "/v1/runs", `{"task": "one more"}`)
	if code != 429 || !strings.Contains(string(body), "tenant team_a has 1 runs in flight, its quota") {
		t.Errorf("team_a over its quota through another replica: %d %s", code, body)
	}
	a.do("POST", "/v1/runs/"+blocked+"/cancel", "")
	// Once B reads its end from the database, B admits a run.
	for deadline := time.Now().Add(30 * time.Second); !b.get(blocked).State.Final(); {
		if time.Now().After(deadline) {
			t.Fatalf("B never saw the run end: %+v", b.get(blocked))
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.wait(b.start("Add 1, 2 and 3, times 7."))
}
