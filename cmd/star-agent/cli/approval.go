package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/star-agent/star-agent/starlarkagent"
)

// terminalApprover asks the operator at the terminal about each tool call
// that needs approval (--require-approval), showing it as Python,
// tool(arg=…), and reads y(es), n(o) with an optional reason, or e(dit)
// with new arguments as a JSON object. It talks to the controlling
// terminal (/dev/tty), so standard input stays with the tasks and
// user_input, and a run without a terminal (a pipe, a service) denies the
// call and tells the operator why on standard error. Calls made at once
// (parallel(), a tool-calling answer) are asked one after another.
type terminalApprover struct {
	mu     sync.Mutex
	stderr io.Writer
	open   func() (io.ReadWriteCloser, error) // the terminal; os.OpenFile("/dev/tty") by default
}

func newTerminalApprover(stderr io.Writer) *terminalApprover {
	return &terminalApprover{stderr: stderr, open: func() (io.ReadWriteCloser, error) {
		return os.OpenFile("/dev/tty", os.O_RDWR, 0)
	}}
}

// errNoTerminal is the reason of a denial when nobody can be asked.
var errNoTerminal = errors.New("approval is required (--require-approval) and star-agent has no terminal to ask on")

// Approve implements starlarkagent.Approver.
func (t *terminalApprover) Approve(ctx context.Context, req starlarkagent.ApprovalRequest) (starlarkagent.Decision, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	call := req.Python
	tty, err := t.open()
	if err != nil {
		fmt.Fprintf(t.stderr, "star-agent: denied %s: %v (%v); run it in a terminal to approve calls\n", call, errNoTerminal, err)
		return starlarkagent.Decision{}, errNoTerminal
	}
	defer tty.Close()
	type answer struct {
		d   starlarkagent.Decision
		err error
	}
	done := make(chan answer, 1)
	left := time.Duration(-1)
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl).Round(time.Second)
	}
	go func() {
		d, err := t.ask(tty, req, call, left)
		done <- answer{d, err}
	}()
	select {
	case a := <-done:
		return a.d, a.err
	case <-ctx.Done():
		tty.Close() // ends the read
		fmt.Fprintln(t.stderr)
		return starlarkagent.Decision{}, context.Cause(ctx)
	}
}

// ask runs the dialogue on the terminal.
// left is the time the run has before its --run-timeout stops it (-1:
// none); --exec-timeout does not count the wait.
func (t *terminalApprover) ask(tty io.ReadWriter, req starlarkagent.ApprovalRequest, call string, left time.Duration) (starlarkagent.Decision, error) {
	in := bufio.NewReader(tty)
	who := ""
	if req.Agent != "" && req.Agent != "agent" {
		who = " by " + req.Agent
	}
	fmt.Fprintf(tty, "\n━━━ Approval needed (step %d%s) ━━━\n%s\n", req.Step, who, call)
	if left >= 0 {
		fmt.Fprintf(tty, "(answer within %s: the run stops at --run-timeout)\n", left)
	}
	line := func(prompt string) (string, error) {
		fmt.Fprint(tty, prompt)
		s, err := in.ReadString('\n')
		if err != nil && s == "" {
			return "", fmt.Errorf("no answer at the terminal: %w", err)
		}
		return strings.TrimSpace(s), nil
	}
	for {
		a, err := line("Approve? [y]es, [n]o, [e]dit the arguments: ")
		if err != nil {
			return starlarkagent.Decision{}, err
		}
		switch strings.ToLower(a) {
		case "y", "yes":
			return starlarkagent.Decision{Approve: true, By: "terminal"}, nil
		case "n", "no":
			reason, err := line("Reason (for the model): ")
			if err != nil {
				return starlarkagent.Decision{}, err
			}
			if reason == "" {
				reason = "denied at the terminal"
			}
			return starlarkagent.Decision{Reason: reason, By: "terminal"}, nil
		case "e", "edit":
			cur, _ := json.Marshal(req.Arguments)
			fmt.Fprintf(tty, "Arguments now: %s\n", cur)
			s, err := line("New arguments (a JSON object): ")
			if err != nil {
				return starlarkagent.Decision{}, err
			}
			args, err := decodeObject(s)
			if err != nil {
				fmt.Fprintf(tty, "not a JSON object: %v\n", err)
				continue
			}
			return starlarkagent.Decision{Approve: true, Arguments: args, By: "terminal"}, nil
		}
	}
}

// decodeObject reads a JSON object with integers as int64, as tools take
// them.
func decodeObject(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("null is not an object")
	}
	return jsonNumbers(m).(map[string]any), nil
}

// jsonNumbers turns json.Numbers into int64 or float64.
func jsonNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = jsonNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = jsonNumbers(x)
		}
	}
	return v
}
