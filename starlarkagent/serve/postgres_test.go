package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/starlarkagent"
)

const pgBin = "/usr/lib/postgresql/15/bin"

// startPostgres starts a private PostgreSQL 15 cluster in a temporary
// directory, on a free loopback port, as the postgres user, and stops it
// when the test ends. It returns the URL of its database. Without
// PostgreSQL the test is skipped, or fails under CI=true (.ci/run
// installs it).
func startPostgres(t testing.TB) string {
	t.Helper()
	return startCluster(t).url
}

// pgCluster is a private PostgreSQL cluster; ctl runs pg_ctl on it.
type pgCluster struct {
	url string
	ctl func(args ...string) error
	// opts are the server's options, for a start after a stop.
	opts, log string
}

func (c *pgCluster) stop() error { return c.ctl("-m", "fast", "stop") }
func (c *pgCluster) start() error {
	return c.ctl("-o", c.opts, "-l", c.log, "-w", "start")
}

func startCluster(t testing.TB) *pgCluster {
	t.Helper()
	if _, err := os.Stat(filepath.Join(pgBin, "initdb")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL 15 is not installed (%v): .ci/run installs Debian's postgresql", err)
		}
		t.Skipf("PostgreSQL 15 is not installed (%s/initdb): apt-get install -y postgresql", pgBin)
	}
	if os.Geteuid() != 0 {
		t.Skip("starting a private PostgreSQL cluster needs root (runuser -u postgres)")
	}
	dir, err := os.MkdirTemp("", "star-agent-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	as := func(args ...string) *exec.Cmd {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
	}
	if out, err := exec.Command("chown", "postgres", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v: %s", err, out)
	}
	data := filepath.Join(dir, "data")
	if out, err := as(filepath.Join(pgBin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v: %s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctl := func(args ...string) error {
		out, err := as(append([]string{filepath.Join(pgBin, "pg_ctl"), "-D", data}, args...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("pg_ctl %s: %v: %s", args[len(args)-1], err, out)
		}
		return nil
	}
	opts := fmt.Sprintf("-k %s -p %d -h 127.0.0.1 -c max_connections=200 -c fsync=off", dir, port)
	c := &pgCluster{url: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), ctl: ctl, opts: opts, log: filepath.Join(dir, "log")}
	if err := c.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctl("-m", "immediate", "stop") })
	return c
}

// pgReplicas starts n servers on one PostgreSQL database.
func pgReplicas(t *testing.T, n int, modify func(*Options)) []*harness {
	url := startPostgres(t)
	var hs []*harness
	for range n {
		h, _ := newHarness(t, harnessOpts{db: url, modify: modify})
		hs = append(hs, h)
	}
	return hs
}

// TestPostgresReplicas: a run created on A is read, listed and streamed
// from B and C with the same gapless ids, also after a Last-Event-ID
// reconnect; a blocked run on A is cancelled through C.
func TestPostgresReplicas(t *testing.T) {
	hs := pgReplicas(t, 3, nil)
	a, b, c := hs[0], hs[1], hs[2]
	id := a.start("Add.")
	fromB := b.stream(id, "")
	fromC := c.stream(id, "")
	if len(fromB) == 0 || fmt.Sprint(fromB) != fmt.Sprint(fromC) {
		t.Fatalf("streams differ:\nB %v\nC %v", fromB, fromC)
	}
	for i, ev := range fromB {
		if ev.ID != int64(i+1) {
			t.Fatalf("event %d has id %d: %v", i, ev.ID, fromB)
		}
	}
	if fromB[len(fromB)-1].Type != "end" {
		t.Fatalf("no end event: %v", fromB)
	}
	if rest := c.stream(id, "3"); len(rest) != len(fromB)-3 || rest[0].ID != 4 {
		t.Errorf("Last-Event-ID 3 on C: %v", rest)
	}
	if r := c.get(id); r.State != StateSuccess || r.LastEventID != int64(len(fromB)) {
		t.Errorf("C's view: %+v", r)
	}
	if _, _, body := b.do("GET", "/v1/runs", ""); !strings.Contains(string(body), id) {
		t.Errorf("B's list lacks the run: %s", body)
	}

	blocked := a.start("block")
	deadline := time.Now().Add(10 * time.Second)
	for b.get(blocked).State != StateRunning {
		if time.Now().After(deadline) {
			t.Fatalf("never running: %+v", b.get(blocked))
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if code, _, body := c.do("POST", "/v1/runs/"+blocked+"/cancel", ""); code != 202 {
		t.Fatalf("cancel through C: %d %s", code, body)
	}
	evs := b.stream(blocked, "")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancel took %s to reach the run", took)
	}
	if r := c.get(blocked); r.State != StateCancelled {
		t.Errorf("after cancel through C: %+v (events %v)", r, types(evs))
	}
}

// TestPostgresIdempotencyKey: 20 concurrent POSTs with one key, spread
// over two replicas, create one run.
func TestPostgresIdempotencyKey(t *testing.T) {
	hs := pgReplicas(t, 2, nil)
	var wg sync.WaitGroup
	ids := make([]string, 20)
	for i := range ids {
		wg.Go(func() {
			h := hs[i%2]
			code, _, body := h.do("POST", "/v1/runs", `{"task":"Add."}`, "Idempotency-Key", "k-1")
			var v struct{ ID string }
			if (code != 202 && code != 200) || json.Unmarshal(body, &v) != nil {
				t.Errorf("POST %d: %d %s", i, code, body)
			}
			ids[i] = v.ID
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("one key, several runs: %v", ids)
		}
	}
	var n int
	if err := hs[0].srv.store.r.QueryRow(`SELECT count(*) FROM runs`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d runs stored (%v), want 1", n, err)
	}
}

// TestPostgresTakeOver: a run whose server died after its first step
// (stored as that server left it, with a lapsed lease) is taken over by a
// live replica, which replays step 1 (the model is not asked again, the
// value the code computed is back) and finishes it; the dead server's
// late writes are refused.
func TestPostgresTakeOver(t *testing.T) {
	var asked []int
	var mu sync.Mutex
	script := func(string) []string {
		return []string{"<code>\nx = 6 * 7\nprint(x)\n</code>", "<code>\nfinal_answer(x + 1)\n</code>"}
	}
	url := startPostgres(t)
	dead, err := OpenStore(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := newRunID(time.Now())
	if _, err := dead.createRun(ctx, &runRecord{ID: id, Task: "Compute.", Request: json.RawMessage(`{"task":"Compute."}`), State: StateQueued, CreatedAt: time.Now(), Attempt: 1}, "dead", 0); err != nil {
		t.Fatal(err)
	}
	f := fence{run: id, attempt: 1}
	for i, ev := range []string{`{"state":"queued"}`, `{"state":"running"}`, `{"task":"Compute."}`} {
		typ := "state"
		if i == 2 {
			typ = "task"
		}
		dead.addEvent(f, storedEvent{ID: int64(i + 1), Type: typ, Data: json.RawMessage(ev)})
	}
	dead.setRunning(f, time.Now())
	dead.addStep(f, 1, "action", []byte(`{"type":"action","step_number":1,"model_output":"<code>\nx = 6 * 7\nprint(x)\n</code>","token_usage":{"input_tokens":1,"output_tokens":1}}`))
	dead.addEvent(f, storedEvent{ID: 4, Type: "step", Data: json.RawMessage(`{"type":"action","step_number":1}`)})
	if err := dead.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	h, _ := newHarness(t, harnessOpts{db: url, script: script, modify: func(o *Options) {
		o.Lease = time.Second
		next := o.NewAgent
		o.NewAgent = func(ctx context.Context, req AgentRequest) (*starlarkagent.Agent, error) {
			wrap := req.WrapModel
			// The model answers by the conversation's position (its
			// assistant messages so far), as a resumed conversation needs.
			req.WrapModel = func(providers.Model) providers.Model {
				return wrap(scripted.Func(func(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
					n := 0
					for _, m := range msgs {
						if m.Role == providers.RoleAssistant {
							n++
						}
					}
					mu.Lock()
					asked = append(asked, n)
					mu.Unlock()
					answers := script("")
					if n >= len(answers) {
						return nil, fmt.Errorf("no answer at position %d", n)
					}
					return &providers.Message{Role: providers.RoleAssistant, Content: answers[n], Usage: &providers.Usage{InputTokens: 1, OutputTokens: 1}}, nil
				}))
			}
			return next(ctx, req)
		}
	}})
	r := h.wait(id)
	if r.State != StateSuccess || fmt.Sprint(r.Output) != "43" {
		t.Fatalf("taken over: %+v", r)
	}
	mu.Lock()
	if len(asked) != 1 {
		t.Errorf("the model was asked %d times (conversation lengths %v); want once, for step 2", len(asked), asked)
	}
	mu.Unlock()
	evs := h.stream(id, "")
	for i, ev := range evs {
		if ev.ID != int64(i+1) {
			t.Fatalf("ids not gapless: %v", evs)
		}
	}
	if evs[4].Type != "state" || !strings.Contains(evs[4].Data, `"attempt":2`) {
		t.Errorf("no resumption event at 5: %v", evs)
	}
	// The dead server wakes up and writes: refused.
	dead.addEvent(f, storedEvent{ID: 99, Type: "late", Data: json.RawMessage(`{}`)})
	dead.Flush(ctx)
	dead.Close()
	if got := h.stream(id, fmt.Sprint(len(evs))); len(got) != 0 {
		t.Errorf("a late write of the old owner was stored: %v", got)
	}
}

// TestPostgresHandOverOnShutdown: a replica that shuts down (a rolling
// update) hands its running run over instead of ending it: another
// replica resumes it at once, and it can still be cancelled there.
func TestPostgresHandOverOnShutdown(t *testing.T) {
	hs := pgReplicas(t, 2, func(o *Options) { o.Lease = 1200 * time.Millisecond })
	a, b := hs[0], hs[1]
	id := a.start("block")
	deadline := time.Now().Add(10 * time.Second)
	for b.get(id).State != StateRunning {
		if time.Now().After(deadline) {
			t.Fatalf("never running: %+v", b.get(id))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A stream on A while A shuts down ends with a reconnect event that
	// names the last event it sent.
	fromA := make(chan []sseEvent, 1)
	resp := a.openStream(id, "")
	go func() {
		defer resp.Body.Close()
		var evs []sseEvent
		for ev := range readEvents(t, resp.Body) {
			evs = append(evs, ev)
		}
		fromA <- evs
	}()
	time.Sleep(200 * time.Millisecond)
	a.shutdown()
	select {
	case evs := <-fromA:
		last := evs[len(evs)-1]
		var rc reconnectEvent
		json.Unmarshal([]byte(last.Data), &rc)
		if last.Type != "reconnect" || len(evs) < 2 || rc.LastEventID != evs[len(evs)-2].ID || !gapless(evs[:len(evs)-1]) {
			t.Errorf("the stream on A during its shutdown: %v", evs)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stream on A did not end with A's shutdown")
	}
	if r := b.get(id); r.State.Final() {
		t.Fatalf("ended by the other replica's shutdown: %+v", r)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		b.srv.mu.Lock()
		rn := b.srv.active[id]
		b.srv.mu.Unlock()
		if rn != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not taken over within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, _, body := b.do("POST", "/v1/runs/"+id+"/cancel", ""); code != 202 {
		t.Fatalf("cancel on B: %d %s", code, body)
	}
	evs := b.stream(id, "")
	if r := b.get(id); r.State != StateCancelled || !gapless(evs) {
		t.Errorf("after the hand-over and cancel: %+v %v", r, types(evs))
	}
	if !strings.Contains(fmt.Sprint(evs), `"attempt":2`) {
		t.Errorf("no resumption event: %v", evs)
	}
}

// TestIdempotencyKeySQLite: the key works on a single SQLite server too,
// and a new key makes a new run.
func TestIdempotencyKeySQLite(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{})
	var ids []string
	for _, key := range []string{"a", "a", "b"} {
		code, _, body := h.do("POST", "/v1/runs", `{"task":"Add."}`, "Idempotency-Key", key)
		var v struct{ ID string }
		if (code != 202 && code != 200) || json.Unmarshal(body, &v) != nil {
			t.Fatalf("POST: %d %s", code, body)
		}
		ids = append(ids, v.ID)
	}
	if ids[0] != ids[1] || ids[0] == ids[2] {
		t.Errorf("ids %v: want the first two equal, the third new", ids)
	}
	if code, _, _ := h.do("POST", "/v1/runs", `{"task":"Add."}`, "Idempotency-Key", strings.Repeat("k", 256)); code != 400 {
		t.Errorf("a 256-byte key: %d, want 400", code)
	}
}

// TestPostgresApprovalOnAnotherReplica: a run on A awaits approval; B
// lists the pending call (from the stored events) and decides it, three
// times (approve, deny, approve with edited arguments): A applies each
// decision and the run ends as if it had been decided on A; a decided
// approval cannot be decided again.
func TestPostgresApprovalOnAnotherReplica(t *testing.T) {
	hs := pgReplicas(t, 2, approvalOptions(approvalCode, time.Minute))
	a, b := hs[0], hs[1]
	id := a.start("pay")
	a.awaitApproval(id)
	p := b.awaitApproval(id)
	if p.Tool != "send" || p.Arguments["to"] != "alice" || !strings.HasPrefix(p.ID, "ap_") {
		t.Fatalf("B's view of the pending call: %+v", p)
	}
	if code, body := b.decide(id, p.ID, `{"approve": true}`); code != http.StatusAccepted {
		t.Fatalf("approve through B: %d %s", code, body)
	}
	if code, body := b.decide(id, p.ID, `{"approve": false}`); code != http.StatusNotFound {
		t.Errorf("deciding twice through B: %d %s, want 404", code, body)
	}
	p2 := waitNewApproval(b, id, p.ID)
	if code, body := b.decide(id, p2.ID, `{"approve": false, "reason": "not a customer"}`); code != http.StatusAccepted {
		t.Fatalf("deny through B: %d %s", code, body)
	}
	p3 := waitNewApproval(b, id, p2.ID)
	if code, body := b.decide(id, p3.ID, `{"approve": true, "arguments": {"to": "bob", "amount": 50}}`); code != http.StatusAccepted {
		t.Fatalf("edit through B: %d %s", code, body)
	}
	r := b.wait(id)
	if r.State != StateSuccess || r.Output != "paid" {
		t.Fatalf("run %+v", r)
	}
	var obs string
	for _, e := range b.stream(id, "") {
		if e.Type == "observation" && obs == "" {
			obs = e.Data
		}
	}
	for _, want := range []string{"sent 5 to alice", "caught: denied by the operator: not a customer", "sent 50 to bob"} {
		if !strings.Contains(obs, want) {
			t.Errorf("observation lacks %q: %s", want, obs)
		}
	}
}

// waitNewApproval waits until h lists a pending approval of run other
// than prev.
func waitNewApproval(h *harness, run, prev string) pendingJSON {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if p := h.awaitApproval(run); p.ID != prev {
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("approval %s was never applied", prev)
	return pendingJSON{}
}
