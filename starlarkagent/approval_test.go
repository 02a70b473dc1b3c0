package starlarkagent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
)

type transferArgs struct {
	To     string `json:"to" jsonschema:"Who receives the money."`
	Amount int    `json:"amount" jsonschema:"How much."`
}

// transfer is a tool that records the calls that reached it.
type transfer struct {
	mu    sync.Mutex
	calls []transferArgs
	needs bool // Spec.RequiresApproval
}

func (tr *transfer) Spec() tool.Spec {
	spec := tool.MustNew("transfer", "Sends money.", func(context.Context, transferArgs) (string, error) { return "", nil }).Spec()
	spec.RequiresApproval = tr.needs
	return spec
}

func (tr *transfer) Call(_ context.Context, args map[string]any) (any, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	a := transferArgs{To: args["to"].(string), Amount: int(args["amount"].(int64))}
	tr.calls = append(tr.calls, a)
	return "sent " + a.To, nil
}

// decide is an approver that answers from a table by recipient and keeps
// the requests it saw.
type decide struct {
	mu   sync.Mutex
	seen []ApprovalRequest
	by   map[string]Decision
}

func (d *decide) approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seen = append(d.seen, req)
	return d.by[req.Arguments["to"].(string)], nil
}

// TestApprovalInCode runs approvals through the Starlark engine: an
// approved call runs, a denied one raises ToolError with the operator's
// reason (caught by the code), an edited one runs with the operator's
// arguments, and every decision is in the step's record.
func TestApprovalInCode(t *testing.T) {
	tr := &transfer{}
	d := &decide{by: map[string]Decision{
		"alice":   {Approve: true, By: "ops"},
		"mallory": {Reason: "not a customer", By: "ops"},
		"bob":     {Approve: true, Arguments: map[string]any{"to": "bob", "amount": int64(10)}, By: "ops"},
	}}
	m := scripted.New(
		action("Send.", `
print(transfer("alice", 5))
try:
    transfer(to="mallory", amount=1000)
except ToolError as e:
    print("caught:", e)
print(transfer("bob", 500))`),
		action("Done.", `final_answer("ok")`),
	)
	a, err := New(Options{Model: m, Tools: []tool.Tool{tr}, RequireApproval: []string{"trans*"}, Approver: d.approve})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "pay", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := a.Memory().ActionSteps()[0]
	if st.Error != nil {
		t.Fatalf("step failed: %v", st.Error.Message)
	}
	for _, want := range []string{"sent alice", "caught: denied by the operator: not a customer", "sent bob"} {
		if !strings.Contains(st.Observation, want) {
			t.Errorf("observation lacks %q:\n%s", want, st.Observation)
		}
	}
	if want := []transferArgs{{"alice", 5}, {"bob", 10}}; len(tr.calls) != 2 || tr.calls[0] != want[0] || tr.calls[1] != want[1] {
		t.Errorf("the tool got %v, want %v", tr.calls, want)
	}
	if len(d.seen) != 3 || d.seen[1].Tool != "transfer" || d.seen[1].Step != 1 || d.seen[1].Agent != "agent" || d.seen[1].Arguments["amount"] != int64(1000) {
		t.Errorf("requests %+v", d.seen)
	}
	if len(st.ToolCalls) != 3 {
		t.Fatalf("calls %+v", st.ToolCalls)
	}
	denied := st.ToolCalls[1]
	if denied.Approval == nil || denied.Approval.Approved || denied.Approval.Reason != "not a customer" || denied.Approval.By != "ops" ||
		denied.Error != "denied by the operator: not a customer" || denied.Arguments["to"] != "mallory" {
		t.Errorf("denied call %+v %+v", denied, denied.Approval)
	}
	if e := st.ToolCalls[2]; e.Approval == nil || !e.Approval.Edited || e.Arguments["amount"] != int64(10) {
		t.Errorf("edited call %+v", e)
	}
	if res.Output != "ok" {
		t.Errorf("output %v", res.Output)
	}
}

// TestApprovalUncaught: a denial the code does not catch is a ToolError
// the model reads; without an approver every such call is denied; a
// tool's own Spec.RequiresApproval needs no pattern; other tools pass.
func TestApprovalUncaught(t *testing.T) {
	tr := &transfer{needs: true}
	m := scripted.New(
		action("Send.", `print(lookup("paris"))
transfer("alice", 5)`),
		action("Done.", `final_answer("ok")`),
	)
	a, err := New(Options{Model: m, Tools: []tool.Tool{tr, lookup}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "pay", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	st := a.Memory().ActionSteps()[0]
	if st.Error == nil || st.Error.Type != "ToolError" || !strings.Contains(st.Error.Message, "denied by the operator: this tool needs approval and the run has no approver") {
		t.Fatalf("step error %+v", st.Error)
	}
	if len(tr.calls) != 0 {
		t.Errorf("the denied tool ran: %v", tr.calls)
	}
	if !strings.Contains(st.Observation, "France") {
		t.Errorf("lookup did not run: %q", st.Observation)
	}
	// The model reads the denial in its next prompt.
	if in := m.Calls()[1].Messages; !strings.Contains(in[len(in)-1].Content, "denied by the operator") {
		t.Errorf("the model did not read the denial: %q", in[len(in)-1].Content)
	}
}

// TestApprovalToolCalling: a tool-calling model's call waits too; the
// run's approver (RunOptions) replaces the agent's; a managed agent
// without an approver of its own asks its manager's.
func TestApprovalToolCalling(t *testing.T) {
	tr := &transfer{}
	member, err := New(Options{
		Name: "payer", Description: "Pays people.",
		Model: scripted.New(
			action("Pay.", `transfer("bob", 7)`),
			action("Done.", `final_answer("paid")`)),
		Tools: []tool.Tool{tr}, RequireApproval: []string{"*"},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted.Model{Responses: []scripted.Response{
		{ToolCalls: []providers.ToolCall{call("c1", "transfer", `{"to": "mallory", "amount": 3}`), call("c2", "payer", `{"task": "pay bob"}`)}},
		{ToolCalls: []providers.ToolCall{call("f", "final_answer", `{"answer": "done"}`)}},
	}}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling, Tools: []tool.Tool{tr}, ManagedAgents: []*Agent{member},
		RequireApproval: []string{"transfer"},
		Approver: func(context.Context, ApprovalRequest) (Decision, error) {
			return Decision{}, errors.New("the agent's approver must not be asked")
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	d := &decide{by: map[string]Decision{"mallory": {Reason: "no"}, "bob": {Approve: true}}}
	if _, err := a.Run(context.Background(), "pay", RunOptions{Approver: d.approve}); err != nil {
		t.Fatal(err)
	}
	st := a.Memory().ActionSteps()[0]
	if c := st.ToolCalls[0]; c.Error != "denied by the operator: no" || c.Approval == nil || c.Approval.Approved {
		t.Errorf("call %+v", c)
	}
	if len(tr.calls) != 1 || tr.calls[0].To != "bob" {
		t.Errorf("tool calls %v", tr.calls)
	}
	agents := map[string]bool{}
	for _, r := range d.seen {
		agents[r.Agent] = true
	}
	if !agents["agent"] || !agents["payer"] {
		t.Errorf("requests %+v", d.seen)
	}
}

// TestApprovalBadPattern: a pattern path.Match cannot read is refused.
func TestApprovalBadPattern(t *testing.T) {
	if _, err := New(Options{Model: scripted.New(), RequireApproval: []string{"[x"}}); err == nil {
		t.Fatal("no error")
	}
}

// TestAuditTrail: every tool call, a managed agent's included, reaches
// RunOptions.Audit and leaves a JSON line on the audit logger with who,
// what, the outcome and the decision; each decision leaves one too.
func TestAuditTrail(t *testing.T) {
	var lines strings.Builder
	var mu sync.Mutex
	audit := slog.New(slog.NewJSONHandler(&lockedWriter{w: &lines, mu: &mu}, nil))
	tr := &transfer{}
	member, err := New(Options{Name: "payer", Description: "Pays.", AuditLogger: audit, RequireApproval: []string{"transfer"},
		Model: scripted.New(action("Pay.", `transfer("bob", 7)`), action("Done.", `final_answer("paid")`)), Tools: []tool.Tool{tr}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{AuditLogger: audit, ManagedAgents: []*Agent{member}, Tools: []tool.Tool{lookup},
		Model: scripted.New(action("Go.", `print(lookup("paris"))
print(payer(task="pay bob"))`), action("Done.", `final_answer("ok")`))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var recs []AuditRecord
	approve := func(context.Context, ApprovalRequest) (Decision, error) {
		return Decision{Reason: "no", By: "ops"}, nil
	}
	if _, err := a.Run(context.Background(), "t", RunOptions{Approver: approve, Audit: func(r AuditRecord) {
		mu.Lock()
		defer mu.Unlock()
		recs = append(recs, r)
	}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Agent+" "+r.Call.Name+" "+r.Outcome)
	}
	if want := "agent lookup ok,payer transfer denied,agent payer ok"; strings.Join(got, ",") != want {
		t.Errorf("audit records %q, want %q", strings.Join(got, ","), want)
	}
	for _, want := range []string{
		`"msg":"tool call","agent":"agent","tool":"lookup","step":1,"arguments":"{'key': 'paris'}"`,
		`"msg":"approval denied","agent":"payer","tool":"transfer","approval":"ap_`,
		`"by":"ops","reason":"no"`,
		`"msg":"tool call","agent":"payer","tool":"transfer","step":1,"arguments":"{'amount': 7, 'to': 'bob'}"`,
		`"approved":false,"decided_by":"ops","outcome":"denied","error":"denied by the operator: no"`,
	} {
		if !strings.Contains(lines.String(), want) {
			t.Errorf("audit log lacks %s:\n%s", want, lines.String())
		}
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// TestLoadWithApproval: governance is given at load time, not saved: a
// loaded agent's calls wait for the loader's approver.
func TestLoadWithApproval(t *testing.T) {
	tr := &transfer{}
	a, err := New(Options{Model: scripted.New(), Tools: []tool.Tool{tr}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := a.Save(dir); err != nil {
		t.Fatal(err)
	}
	a.Close()
	d := &decide{by: map[string]Decision{"alice": {Reason: "loaded and denied"}}}
	loaded, err := Load(dir, LoadOptions{Model: scripted.New(action("Pay.", `transfer("alice", 1)`), action("Done.", `final_answer(1)`)),
		Tools: []tool.Tool{tr}, RequireApproval: []string{"transfer"}, Approver: d.approve})
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Close()
	loaded.Run(context.Background(), "t", RunOptions{})
	if st := loaded.Memory().ActionSteps()[0]; st.Error == nil || !strings.Contains(st.Error.Message, "denied by the operator: loaded and denied") || len(tr.calls) != 0 {
		t.Errorf("step %+v, calls %v", st.Error, tr.calls)
	}
}
