package serve_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/starlarkagent/serve"
	"github.com/star-agent/star-agent/tool"
)

type payArgs struct {
	To     string `json:"to" jsonschema:"Who gets it."`
	Amount int    `json:"amount" jsonschema:"How much."`
}

var payTool = tool.MustNew("pay", "Pays someone.", func(_ context.Context, a payArgs) (string, error) {
	return fmt.Sprintf("paid %d to %s", a.Amount, a.To), nil
})

// TestBrowserApprovals: a run whose calls of pay need approval shows
// each call with Approve and Deny buttons; the page's decisions reach the
// code (the denial with the reason typed on the page), and the boxes then
// show the outcome.
func TestBrowserApprovals(t *testing.T) {
	path := chromium(t)
	store, err := serve.OpenStore(filepath.Join(t.TempDir(), "runs.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{
		Store: store, ShutdownGrace: 10 * time.Millisecond, ModelID: "scripted", ApprovalTimeout: time.Minute,
		NewAgent: func(ctx context.Context, req serve.AgentRequest) (*starlarkagent.Agent, error) {
			model := scripted.New(
				"Thought: pay both.\n<code>\nprint(pay(\"alice\", 5))\ntry:\n    pay(\"mallory\", 1000)\nexcept ToolError as e:\n    print(\"caught:\", e)\n</code>",
				"Thought: done.\n<code>\nfinal_answer(\"alice paid\")\n</code>")
			exec, err := starlarkexec.New(starlarkexec.Options{})
			if err != nil {
				return nil, err
			}
			a, err := starlarkagent.New(starlarkagent.Options{Model: req.WrapModel(model), Executor: exec,
				Tools: []tool.Tool{payTool}, RequireApproval: []string{"pay"}})
			if err != nil {
				exec.Close()
			}
			return a, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	b := newBrowser(t, path)
	b.url = "http://" + ln.Addr().String() + "/"
	exceptions := b.consoleErrors()

	b.startRun("Pay alice and mallory.", "")
	const pending = `document.querySelector('.step[data-step="1"] .approval.pending')`
	b.waitFor("the first call to approve", pending+` && `+pending+`.querySelector('.approval-call').textContent === "pay(to='alice', amount=5)" && `+
		pending+`.querySelector('.approval-deadline').textContent.startsWith('Decide by ') && document.getElementById('run-state').textContent === 'Awaiting approval'`)
	b.screenshot("approval")
	b.do("approving", chromedp.Click(chromedp.CSS(`.approval.pending .approve-btn`)))
	b.waitFor("the second call", pending+` && `+pending+`.querySelector('.approval-call').textContent.includes("mallory")`)
	b.do("giving a reason and denying",
		chromedp.SendKeys(chromedp.CSS(`.approval.pending .approval-reason`), "not a customer"),
		chromedp.Click(chromedp.CSS(`.approval.pending .deny-btn`)))
	b.waitFor("the end of the run", `document.getElementById('run-state').textContent === 'Success'`)
	var got struct {
		Outcomes []string `json:"outcomes"`
		Printed  string   `json:"printed"`
		Answer   string   `json:"answer"`
	}
	b.eval(`({
		outcomes: [...document.querySelectorAll('.approval')].map(a => a.className + ': ' + a.querySelector('.approval-outcome').textContent),
		printed: document.querySelector('.step[data-step="1"] .out').textContent,
		answer: document.querySelector('.final-answer .final-body').textContent,
	})`, &got)
	want := "approval approved: Approved by api\napproval denied: Denied by api: not a customer"
	if strings.Join(got.Outcomes, "\n") != want {
		b.fail("approval boxes:\n%s\nwant:\n%s", strings.Join(got.Outcomes, "\n"), want)
	}
	if !strings.Contains(got.Printed, "paid 5 to alice") || !strings.Contains(got.Printed, "caught: denied by the operator: not a customer") || got.Answer != "alice paid" {
		b.fail("the decisions did not reach the code: printed %q, answer %q", got.Printed, got.Answer)
	}
	b.screenshot("approval-decided")
	if ex := exceptions(); len(ex) > 0 {
		b.fail("errors in the page: %v", ex)
	}
}
