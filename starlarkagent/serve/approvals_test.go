package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/tool"
)

type sendArgs struct {
	To     string `json:"to" jsonschema:"Who gets it."`
	Amount int    `json:"amount" jsonschema:"How much."`
}

var sendTool = tool.MustNew("send", "Sends money.", func(_ context.Context, a sendArgs) (string, error) {
	return fmt.Sprintf("sent %d to %s", a.Amount, a.To), nil
})

// approvalCode calls send three times: approved, denied (caught as
// ToolError), approved with edited arguments.
var approvalCode = []string{
	"Thought: pay.\n<code>\nprint(send(\"alice\", 5))\ntry:\n    send(\"mallory\", 1000)\nexcept ToolError as e:\n    print(\"caught:\", e)\nprint(send(\"bob\", 500))\n</code>",
	"Thought: done.\n<code>\nfinal_answer(\"paid\")\n</code>",
}

// approvalHarness is a server whose agents need approval for send.
func approvalHarness(t *testing.T, code []string, timeout time.Duration) *harness {
	h, _ := newHarness(t, harnessOpts{modify: approvalOptions(code, timeout)})
	return h
}

// approvalOptions make a server's agents run code and need approval for
// send.
func approvalOptions(code []string, timeout time.Duration) func(*Options) {
	return func(o *Options) {
		o.ApprovalTimeout = timeout
		o.NewAgent = func(ctx context.Context, req AgentRequest) (*starlarkagent.Agent, error) {
			l, err := starlarkexec.New(starlarkexec.Options{})
			if err != nil {
				return nil, err
			}
			a, err := starlarkagent.New(starlarkagent.Options{
				Model: req.WrapModel(scripted.New(code...)), Executor: l,
				Tools: []tool.Tool{sendTool, pingTool}, RequireApproval: []string{"se*"},
			})
			if err != nil {
				l.Close()
			}
			return a, err
		}
	}
}

type pendingJSON struct {
	ID        string         `json:"id"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Step      int            `json:"step"`
	Call      string         `json:"call"`
	Requested time.Time      `json:"requested_at"`
	Deadline  time.Time      `json:"deadline"`
}

// awaitApproval polls GET /v1/runs/{id} until the run awaits approval of
// a call, and returns it.
func (h *harness) awaitApproval(id string) pendingJSON {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		code, _, body := h.do("GET", "/v1/runs/"+id, "")
		if code != 200 {
			h.t.Fatalf("GET: %d %s", code, body)
		}
		var r struct {
			State   State         `json:"state"`
			Pending []pendingJSON `json:"pending_approvals"`
		}
		json.Unmarshal(body, &r)
		if r.State.Final() {
			h.t.Fatalf("the run ended while an approval was awaited: %s", body)
		}
		if len(r.Pending) > 0 {
			if r.State != StateAwaitingApproval {
				h.t.Errorf("state %s with pending approvals", r.State)
			}
			return r.Pending[0]
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatal("no approval was requested")
	return pendingJSON{}
}

func (h *harness) decide(id, approval, body string) (int, []byte) {
	h.t.Helper()
	code, _, b := h.do("POST", "/v1/runs/"+id+"/approvals/"+approval, body)
	return code, b
}

// TestApprovalThroughAPI: the run parks in awaiting_approval with the call
// in pending_approvals; decisions through the API approve, deny (the code
// catches a ToolError with the reason) and edit; the events announce
// requests and decisions; a decided approval cannot be decided again.
func TestApprovalThroughAPI(t *testing.T) {
	h := approvalHarness(t, approvalCode, time.Minute)
	id := h.start("pay")
	p := h.awaitApproval(id)
	if p.Tool != "send" || p.Step != 1 || p.Arguments["to"] != "alice" || p.Arguments["amount"] != 5.0 || p.Call != "send(to='alice', amount=5)" || !strings.HasPrefix(p.ID, "ap_") {
		t.Fatalf("pending %+v", p)
	}
	// The execution's time limit (30 s) does not count the wait: the
	// approval timeout (1 m) is the deadline.
	if wait := p.Deadline.Sub(p.Requested); wait != time.Minute {
		t.Errorf("deadline %v after the request, want the approval timeout of 1m", wait)
	}
	if code, b := h.decide(id, p.ID, `{"approve": "yes"}`); code != 400 {
		t.Errorf("a malformed decision: %d %s", code, b)
	}
	if code, b := h.decide(id, p.ID, `{"approve": true}`); code != 200 {
		t.Fatalf("approve: %d %s", code, b)
	}
	if code, _ := h.decide(id, p.ID, `{"approve": false}`); code != 404 {
		t.Errorf("deciding twice: %d, want 404", code)
	}
	p2 := h.awaitApproval(id)
	if p2.ID == p.ID || p2.Arguments["to"] != "mallory" {
		t.Fatalf("second pending %+v", p2)
	}
	if code, b := h.decide(id, p2.ID, `{"approve": false, "reason": "not a customer"}`); code != 200 {
		t.Fatalf("deny: %d %s", code, b)
	}
	p3 := h.awaitApproval(id)
	if code, b := h.decide(id, p3.ID, `{"approve": true, "arguments": {"to": "bob", "amount": 50}}`); code != 200 {
		t.Fatalf("edit: %d %s", code, b)
	}
	r := h.wait(id)
	if r.State != StateSuccess || r.Output != "paid" {
		t.Fatalf("run %+v", r)
	}
	evs := h.stream(id, "")
	var obs string
	var requested, decided, awaiting int
	var calls []toolCallEvent
	var audits []string
	for _, e := range evs {
		switch e.Type {
		case "approval_requested":
			requested++
		case "approval_decided":
			decided++
			var d approvalDecided
			json.Unmarshal([]byte(e.Data), &d)
			if d.ID == p2.ID && (d.Approved || d.Reason != "not a customer" || d.By != "api") {
				t.Errorf("decision event %s", e.Data)
			}
		case "state":
			if strings.Contains(e.Data, `"awaiting_approval"`) {
				awaiting++
			}
		case "observation":
			if obs == "" {
				obs = e.Data
			}
		case "tool_call":
			var c toolCallEvent
			json.Unmarshal([]byte(e.Data), &c)
			calls = append(calls, c)
		case "audit":
			var a auditEvent
			json.Unmarshal([]byte(e.Data), &a)
			audits = append(audits, a.Agent+" "+a.Tool+" "+a.Outcome)
		}
	}
	if got := strings.Join(audits, ","); got != "agent send ok,agent send denied,agent send ok" {
		t.Errorf("audit events %q", got)
	}
	if requested != 3 || decided != 3 || awaiting != 3 {
		t.Errorf("%d requested, %d decided, %d awaiting_approval state events; want 3 each", requested, decided, awaiting)
	}
	for _, want := range []string{"sent 5 to alice", "caught: denied by the operator: not a customer", "sent 50 to bob"} {
		if !strings.Contains(obs, want) {
			t.Errorf("observation lacks %q: %s", want, obs)
		}
	}
	if len(calls) != 3 || calls[1].Approval == nil || calls[1].Approval.Approved || !calls[2].Approval.Edited || calls[2].Arguments["amount"] != 50.0 {
		t.Errorf("tool_call events (the audit trail) %+v", calls)
	}
	if code, _ := h.decide(id, p.ID, `{"approve": true}`); code != http.StatusConflict {
		t.Errorf("deciding on an ended run: %d, want 409", code)
	}
}

// TestApprovalTimeout: a call nobody decides is denied after the
// server's approval timeout, and the model reads why.
func TestApprovalTimeout(t *testing.T) {
	h := approvalHarness(t, []string{
		"Thought: pay.\n<code>\nsend(\"alice\", 5)\n</code>",
		"Thought: give up.\n<code>\nfinal_answer(\"not paid\")\n</code>",
	}, 200*time.Millisecond)
	id := h.start("pay")
	r := h.wait(id)
	if r.State != StateSuccess || r.Output != "not paid" {
		t.Fatalf("run %+v", r)
	}
	var step struct {
		Error struct{ Type, Message string } `json:"error"`
	}
	json.Unmarshal(r.Steps[0], &step) // the task step
	json.Unmarshal(r.Steps[1], &step)
	if step.Error.Type != "ToolError" || !strings.Contains(step.Error.Message, "denied by the operator: no decision within 200ms (the server's approval timeout)") {
		t.Errorf("step error %+v", step.Error)
	}
	_, _, metrics := h.do("GET", "/metrics", "")
	if !strings.Contains(string(metrics), `star_agent_approvals_total{outcome="timed_out"} 1`) {
		t.Errorf("metrics lack the timed-out approval")
	}
}

// BenchmarkApprovalRoundTrip measures what approval through the API adds
// to a tool call: one run whose code calls ping() b.N times, each call
// approved by a client that reads approval_requested from the event
// stream and POSTs the decision (approval=on), against the same run
// without approval (approval=off). ns/op is per call.
//
//	go test -run '^$' -bench ApprovalRoundTrip -benchtime 500x ./starlarkagent/serve/
func BenchmarkApprovalRoundTrip(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("approval=%v", map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
			store, err := OpenStore(":memory:", nil)
			if err != nil {
				b.Fatal(err)
			}
			n := b.N
			srv, err := New(Options{Store: store, ShutdownGrace: time.Millisecond,
				NewAgent: func(ctx context.Context, req AgentRequest) (*starlarkagent.Agent, error) {
					l, err := starlarkexec.New(starlarkexec.Options{Limits: executors.Limits{Timeout: 10 * time.Minute}})
					if err != nil {
						return nil, err
					}
					opts := starlarkagent.Options{
						Model: req.WrapModel(scripted.New(
							fmt.Sprintf("Thought: ping.\n<code>\nfor i in range(%d):\n    ping()\n</code>", n),
							"Thought: done.\n<code>\nfinal_answer(1)\n</code>")),
						Executor: l, Tools: []tool.Tool{pingTool},
					}
					if on {
						opts.RequireApproval = []string{"ping"}
					}
					return starlarkagent.New(opts)
				}})
			if err != nil {
				b.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			go srv.Serve(ln)
			defer srv.Shutdown(context.Background())
			base := "http://" + ln.Addr().String()
			post := func(path, body string) []byte {
				resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				defer resp.Body.Close()
				out, _ := io.ReadAll(resp.Body)
				if resp.StatusCode >= 300 {
					b.Fatalf("POST %s: %d %s", path, resp.StatusCode, out)
				}
				return out
			}
			b.ResetTimer()
			var created struct{ ID string }
			json.Unmarshal(post("/v1/runs", `{"task":"ping"}`), &created)
			resp, err := http.Get(base + "/v1/runs/" + created.ID + "/events")
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 16<<20)
			typ, approved := "", 0
			for sc.Scan() {
				line := sc.Text()
				switch {
				case strings.HasPrefix(line, "event: "):
					typ = line[7:]
				case strings.HasPrefix(line, "data: ") && typ == "approval_requested":
					var p struct{ ID string }
					json.Unmarshal([]byte(line[6:]), &p)
					post("/v1/runs/"+created.ID+"/approvals/"+p.ID, `{"approve":true}`)
					approved++
				case strings.HasPrefix(line, "data: ") && typ == "end":
					if !strings.Contains(line, `"state":"success"`) {
						b.Fatalf("the run ended %s", line)
					}
				}
			}
			b.StopTimer()
			if on && approved != n {
				b.Fatalf("%d approvals for %d calls", approved, n)
			}
		})
	}
}

// TestCancelWhileAwaitingApproval: a run parked on a call can be
// cancelled; the call is abandoned, not approved, and the run ends
// cancelled.
func TestCancelWhileAwaitingApproval(t *testing.T) {
	h := approvalHarness(t, approvalCode, time.Minute)
	id := h.start("pay")
	p := h.awaitApproval(id)
	if code, _, body := h.do("POST", "/v1/runs/"+id+"/cancel", ""); code != 202 || !strings.Contains(string(body), `"awaiting_approval"`) {
		t.Fatalf("cancel: %d %s", code, body)
	}
	if r := h.wait(id); r.State != StateCancelled {
		t.Fatalf("state %s", r.State)
	}
	if code, _ := h.decide(id, p.ID, `{"approve": true}`); code != 409 {
		t.Errorf("deciding on the cancelled run: %d, want 409", code)
	}
	_, _, metrics := h.do("GET", "/metrics", "")
	if !strings.Contains(string(metrics), `star_agent_approvals_total{outcome="abandoned"} 1`) {
		t.Errorf("metrics lack the abandoned approval")
	}
}
